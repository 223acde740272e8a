/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON text for the guest programs that answer the host in documents
 * (pmem-checker, pmem-verify) without a JSON library in the checker's
 * small initramfs: the one thing they cannot print with printf is a string.
 */
#ifndef PMEM_JSON_OUT_H
#define PMEM_JSON_OUT_H

#include <stdio.h>

/*
 * s as a JSON string, quotes included: '"', '\\' and control characters
 * escaped, and every byte past ASCII as \u00XX (its Latin-1 reading), so
 * that the line is valid JSON whatever bytes a file name or message holds.
 */
void json_put_string(FILE *out, const char *s);

#endif
