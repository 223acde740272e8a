// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness collect RUN_DIR: merge a planned run's finished units into
 * what the run's command would have written, and name the units still
 * missing. The run's kind (run.json) says what that is: a bench run's
 * cells, summary and report (bench_collect.c); a crashtest's summary.json,
 * verdict tables and report (crash_collect.c); an xfstests run's
 * xfstests.json, summary.md and baseline comparison (xfstests_collect.c).
 * Exit status 0 when every planned unit is done (and, for a crashtest,
 * every verdict as expected; for xfstests, no regression), 1 when some
 * are missing (or not so), 2 when there is no run.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "../bench/bench.h"
#include "builtin.h"
#include "../crash-inject/run/crash_plan.h"
#include "../xfstests/host/xfstests_run.h"

int cmd_collect(int argc, char **argv)
{
	char path[1100];
	struct bench b;
	const char *kind;
	json_t *run;
	int missing, rc;

	if (argc == 2 && is_help_arg(argv[1])) {
		printf("usage: pmem-harness collect RUN_DIR\n"
		       "Merges the units of a planned run (bench, crashtest or xfstests) into its results.\n");
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: pmem-harness collect RUN_DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/run.json", argv[1]);
	run = json_load_file(path, 0, NULL);
	kind = json_string_value(json_object_get(run, "kind")) ?: "bench";
	if (!strcmp(kind, "crashtest")) {
		rc = crash_collect(argv[1], run);
		json_decref(run);
		return rc;
	}
	if (!strcmp(kind, "xfstests")) {
		rc = xt_collect(argv[1], run, 1);
		json_decref(run);
		return rc;
	}
	json_decref(run);
	if (bench_load(&b, argv[1], "collect") < 0)
		return 2;
	missing = bench_collect(&b, stdout);
	if (missing < 0)
		return 2;
	return missing ? 1 : 0;
}
