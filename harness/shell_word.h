/* SPDX-License-Identifier: GPL-2.0 */
/* A word written for sh: a name the harness puts on a command line. */
#ifndef HARNESS_SHELL_WORD_H
#define HARNESS_SHELL_WORD_H

#include <stdio.h>

/* s as one word for sh: as it is when it needs no quoting, else in single quotes. */
void shell_word(FILE *f, const char *s);

#endif
