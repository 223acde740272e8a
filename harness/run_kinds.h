/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kinds of run that plan, unit and collect know: one row each. A run's
 * run.json names its kind ("bench" when it does not: runs made before it
 * did). A new kind is one row here and a folder of its own.
 */
#ifndef HARNESS_RUN_KINDS_H
#define HARNESS_RUN_KINDS_H

#include <jansson.h>

struct run_kind {
	const char *name;
	/* A unit's words after RUN_DIR, and what one unit is (for usage lines). */
	const char *unit_args;
	int unit_nargs;
	const char *unit_is;
	/* pmem-harness plan NAME OPTIONS: argv[0] is NAME. Exit status. */
	int (*plan)(int argc, char **argv);
	/* pmem-harness unit RUN_DIR WORDS...: words holds unit_nargs words. */
	int (*unit)(const char *run_dir, json_t *run, char **words);
	/* pmem-harness collect RUN_DIR. */
	int (*collect)(const char *run_dir, json_t *run);
};

extern const struct run_kind run_kinds[];
extern const int run_kinds_count;

/* The row named name, or NULL. */
const struct run_kind *run_kind_named(const char *name);

/* RUN_DIR/run.json in *run (NULL when unreadable) and the row of its kind. */
const struct run_kind *run_kind_of(const char *run_dir, json_t **run);

/* "bench, crashtest or xfstests" */
const char *run_kind_names(void);

#endif
