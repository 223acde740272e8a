// SPDX-License-Identifier: GPL-2.0
/*
 * A bench run as plan, unit and collect see it (harness/run_kinds.c): the
 * plan's lines, one unit's guest, and the merge of the units' results.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/diskfull.h"
#include "../lib/textfile.h"
#include "bench.h"

int bench_plan_main(int argc, char **argv)
{
	char path[PATH_MAX], *plan;
	struct bench b;
	int n, status;

	if (bench_parse(&b, argc, argv, "plan bench") < 0)
		return 2;
	n = bench_plan(&b, &status);
	if (n < 0)
		return status;
	snprintf(path, sizeof(path), "%s/plan.txt", b.run_dir);
	plan = read_text_file(path);
	fputs(plan ? plan : "", stdout);
	free(plan);
	fprintf(stderr, "plan: %d unit%s in %s; run each line, then: %s collect %s\n", n, n == 1 ? "" : "s",
		path, b.harness, b.run_dir);
	return 0;
}

static int in_list(const struct bench_list *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

int bench_unit_main(const char *run_dir, json_t *run, char **w)
{
	char dir[PATH_MAX], where[200], *end;
	struct timespec t0, t1;
	struct bench b;
	long rep;

	(void)run; /* bench_load() reads run.json with its own checks */
	if (bench_load(&b, run_dir, "unit") < 0)
		return 2;
	rep = strtol(w[2], &end, 10);
	if (!in_list(&b.kernels, w[0]) || !in_list(&b.fss, w[1]) || *end || end == w[2] || rep < 1 || rep > b.reps) {
		fprintf(stderr, "unit: %s %s rep %s is not a unit of run %s (see its plan.txt)\n", w[0], w[1], w[2],
			b.run_id);
		return 2;
	}
	bench_unit_dir(&b, w[0], w[1], (int)rep, dir, sizeof(dir));
	if (bench_unit_done(dir)) {
		fprintf(stderr, "unit: %s %s rep %ld: done before, skipped\n", w[0], w[1], rep);
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (bench_run_unit(&b, w[0], w[1], (int)rep) < 0) {
		if (!b.disk_full.code)
			return 1;
		snprintf(where, sizeof(where), "%s/%s rep %ld", w[0], w[1], rep);
		bench_say_disk_full(&b, where, 1);
		return UNIT_EXIT_DISK_FULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "unit: %s %s rep %ld: done in %.0f s (%s)\n", w[0], w[1], rep,
		t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9, dir);
	return 0;
}

int bench_collect_main(const char *run_dir, json_t *run)
{
	struct bench b;
	int missing;

	(void)run;
	if (bench_load(&b, run_dir, "collect") < 0)
		return 2;
	missing = bench_collect(&b, stdout);
	if (missing < 0)
		return 2;
	return missing ? 1 : 0;
}
