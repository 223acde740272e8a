/* SPDX-License-Identifier: GPL-2.0 */
/* A word written for sh: a name the harness puts on a command line. */
#ifndef HARNESS_SHELL_WORD_H
#define HARNESS_SHELL_WORD_H

#include <stdio.h>

/* s as one word for sh: as it is when it needs no quoting, else in single quotes. */
void shell_word(FILE *f, const char *s);

/*
 * One line of a run's plan: "HARNESS unit RUN_DIR A B [C]", each word for sh
 * (C may be NULL). Every kind of run, bench, crashtest and xfstests, writes
 * its units this way.
 */
void unit_command(FILE *f, const char *harness, const char *run_dir, const char *a, const char *b,
		  const char *c);

#endif
