// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness unit RUN_DIR ...: one unit of a planned run, as a line of its
 * plan.txt runs it under any scheduler. The run's kind (run.json) says
 * what a unit is:
 *   bench      KERNEL FS REP   one guest (bench.h), under RUN_DIR/units/
 *   crashtest  SCENARIO FS     one writer guest and its images' checking
 *                              (crash_plan.h), under RUN_DIR/crash/
 *   xfstests   KERNEL FS       a kernel's tests on a filesystem, a guest at
 *                              a time (xfstests_run.h), under RUN_DIR/xfstests/
 * A unit writes only its own directory, and one that is done is not run
 * again, so a scheduler may retry a line safely.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench/bench.h"
#include "builtin.h"
#include "../crash-inject/run/crash_plan.h"
#include "../xfstests/host/xfstests_run.h"

static int in_list(const struct bench_list *l, const char *s)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

/* The kind of run at run_dir, and its run.json (NULL: none readable). */
static const char *run_kind(const char *run_dir, json_t **run)
{
	char path[1100];

	snprintf(path, sizeof(path), "%s/run.json", run_dir);
	*run = json_load_file(path, 0, NULL);
	return json_string_value(json_object_get(*run, "kind")) ?: "bench";
}

/* A crashtest's or an xfstests run's unit: RUN_DIR and two names. */
static int named_unit(int argc, char **argv, json_t *run, const char *kind)
{
	int crash = !strcmp(kind, "crashtest"), rc;

	if (argc != 4) {
		fprintf(stderr, "usage: pmem-harness unit RUN_DIR %s FS (a line of the %s run's plan.txt)\n",
			crash ? "SCENARIO" : "KERNEL", kind);
		json_decref(run);
		return 2;
	}
	rc = crash ? crashtest_unit(argv[1], run, argv[2], argv[3]) : xfstests_unit(argv[1], run, argv[2], argv[3]);
	json_decref(run);
	return rc;
}

int cmd_unit(int argc, char **argv)
{
	char dir[1024], where[200], *end;
	struct timespec t0, t1;
	struct bench b;
	long rep;

	if (argc == 2 && is_help_arg(argv[1])) {
		printf("usage: pmem-harness unit RUN_DIR KERNEL FS REP   (bench)\n"
		       "       pmem-harness unit RUN_DIR SCENARIO FS    (crashtest)\n"
		       "       pmem-harness unit RUN_DIR KERNEL FS      (xfstests)\n"
		       "Runs one unit of a run 'pmem-harness plan' made; plan.txt lists them all.\n");
		return 0;
	}
	if (argc >= 2) {
		json_t *run;
		const char *kind = run_kind(argv[1], &run);

		if (!strcmp(kind, "crashtest") || !strcmp(kind, "xfstests"))
			return named_unit(argc, argv, run, kind);
		json_decref(run);
	}
	if (argc != 5) {
		fprintf(stderr, "usage: pmem-harness unit RUN_DIR KERNEL FS REP (a line of the run's plan.txt)\n");
		return 2;
	}
	if (bench_load(&b, argv[1], "unit") < 0)
		return 2;
	rep = strtol(argv[4], &end, 10);
	if (!in_list(&b.kernels, argv[2]) || !in_list(&b.fss, argv[3]) || *end || end == argv[4] ||
	    rep < 1 || rep > b.reps) {
		fprintf(stderr, "unit: %s %s rep %s is not a unit of run %s (see its plan.txt)\n",
			argv[2], argv[3], argv[4], b.run_id);
		return 2;
	}
	bench_unit_dir(&b, argv[2], argv[3], (int)rep, dir, sizeof(dir));
	if (bench_unit_done(dir)) {
		fprintf(stderr, "unit: %s %s rep %ld: done before, skipped\n", argv[2], argv[3], rep);
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (bench_run_unit(&b, argv[2], argv[3], (int)rep) < 0) {
		if (!b.disk_full[0])
			return 1;
		snprintf(where, sizeof(where), "%s/%s rep %ld", argv[2], argv[3], rep);
		bench_say_disk_full(&b, where, 1);
		return UNIT_EXIT_DISK_FULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "unit: %s %s rep %ld: done in %.0f s (%s)\n", argv[2], argv[3], rep,
		t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9, dir);
	return 0;
}
