/* SPDX-License-Identifier: GPL-2.0 */
/* A host binary carried into a guest inside its job script. */
#ifndef HARNESS_EMBED_H
#define HARNESS_EMBED_H

#include <stdio.h>

/* Append to f the shell lines that recreate bin as the executable dest
 * (the initramfs is fixed; a user's program is not in it); -1 when bin
 * cannot be read. dest is the harness's own fixed path. */
int embed_binary(FILE *f, const char *bin, const char *dest);
/* in as base64 in 76-character lines, as base64(1) writes it. */
int base64_encode_file(FILE *in, FILE *out);

#endif
