/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program as a user writes it on the command line, PROGRAM='data_store
 * btree pool.obj 200' or RECOVER='map-check btree pool.obj': what to build
 * or take (user_program.h) and the arguments it runs with in the guest.
 */
#ifndef CRASH_PROGRAM_LINE_H
#define CRASH_PROGRAM_LINE_H

#include <stdio.h>

#define PROGRAM_ARGS_MAX 64

struct program_line {
	char spec[4096];	/* user_program_build()'s: one file, or sources */
	char *argv[PROGRAM_ARGS_MAX + 1];	/* the arguments, NULL-terminated */
	int argc;
	char words[8192];	/* where argv points */
};

/*
 * Split line: the whole line when it names a file (a path may hold
 * spaces); else its words, split as sh would split them with quotes and
 * backslashes (nothing is expanded): the leading C and C++ sources, or the
 * first word alone (a binary or a script), then the arguments. A first word
 * with no '/' that names no file here is looked up in bin_dir (the PMDK
 * examples the harness built), when bin_dir is given. 0, or -1 with one
 * line on stderr naming what (PROGRAM, RECOVER) was refused.
 */
int program_line_parse(const char *what, const char *line, const char *bin_dir, struct program_line *pl);

/* The arguments as sh words, for a guest's script ("" when none). */
void program_line_args(FILE *f, const struct program_line *pl);

#endif
