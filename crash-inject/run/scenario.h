/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crash scenarios: one row of crash-inject/scenarios each (its head
 * says what the columns mean), or a user's --program as the one row.
 */
#ifndef PMEM_SCENARIO_H
#define PMEM_SCENARIO_H

struct scenario {
	char name[64], job[256], mode[24], platform[8], expect[16];
	char fs[64];		/* the filesystems it runs on, commas or blanks between; "*": any */
	char kernel[48];	/* the flavour it needs, or "": the run's kernel */
	char check[260];	/* a program row (job is a C source): its checker, or "" */
};

/* A row whose job is a program (a C source) rather than a fio job file. */
int scenario_is_program(const struct scenario *s);

/* The table every run reads unless it is given another. */
#define SCENARIO_TABLE "crash-inject/scenarios"

/* Read a table (table NULL: SCENARIO_TABLE, run from the repository top):
 * how many rows, at most max, or -1 after one line on stderr. */
int scenarios_load(const char *table, struct scenario *s, int max);

/* Whether word is one of the words of list (spaces or commas). */
int word_in_list(const char *list, const char *word);

#endif
