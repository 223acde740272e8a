/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run as series of numbers: every (kernel, fs, mode, job, section, metric)
 * with one value per repetition, read only from the run's cell documents
 * (results/runs/<id>/cells/ID.json). Reports and comparisons start here.
 */
#ifndef PMEM_SERIES_H
#define PMEM_SERIES_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#define SERIES_MAX_REPS 64
#define RUN_SCHEMA 1

struct metric {
	const char *key;
	const char *label;
	int higher_is_better;
	int emulated_time;	/* a time under TCG: only ratios mean anything */
	/* Value from one job section of a writer (or fio) result; 0 if absent. */
	int (*get)(json_t *section, double *out);
};

extern const struct metric metrics[];	/* ends with { NULL } */
/* o.a.b for path "a.b", or NULL. */
json_t *json_path(json_t *o, const char *path);

struct series {
	char kernel[64], fs[16], mode[24], job[64], section[64];
	const struct metric *metric;
	double v[SERIES_MAX_REPS];
	size_t n;
};

struct run {
	char dir[PATH_MAX];
	json_t *info;		/* run.json */
	struct series *s;
	size_t n, cap;
};

/* Load run.json and every cell; -1 with one error line if unusable. */
int run_load(const char *dir, struct run *r);
void run_free(struct run *r);
/*
 * Call fn for every job section of every repetition of every cell, one cell
 * document in memory at a time; say_skipped prints a line per unreadable cell.
 */
typedef void (*section_fn)(void *ctx, json_t *cell, json_t *section);
void run_foreach_section(const struct run *r, section_fn fn, void *ctx, int say_skipped);
/* The series for these keys, or NULL. */
struct series *run_find(struct run *r, const char *kernel, const char *fs, const char *mode,
			const char *job, const char *section, const char *metric);

#endif
