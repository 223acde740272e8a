// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness collect RUN_DIR: merge a planned run's finished units into
 * what the run's command would have written, and name the units still
 * missing. The run's kind (run.json, run_kinds.c) says what that is: a
 * bench run's cells, summary and report; a crashtest's summary.json,
 * verdict tables and report; an xfstests run's xfstests.json, summary.md
 * and baseline comparison. Exit status 0 when every planned unit is done
 * (and, for a crashtest, every verdict as expected; for xfstests, no
 * regression), 1 when some are missing (or not so), 2 when there is no run.
 */
#include <limits.h>
#include <stdio.h>

#include "../lib/rundir.h"
#include "builtin.h"
#include "run_kinds.h"

int cmd_collect(int argc, char **argv)
{
	const struct run_kind *k;
	json_t *run;
	char dir[PATH_MAX], why[512];
	int rc;

	if (argc == 2 && is_help_arg(argv[1])) {
		printf("usage: pmem-harness collect RUN_DIR\n"
		       "Merges the units of a planned run (%s) into its results.\n", run_kind_names());
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: pmem-harness collect RUN_DIR\n");
		return 2;
	}
	/* What the run makes under it must still fit (run_dir_name()). */
	if (run_dir_name(dir, sizeof(dir), argv[1], NULL, why, sizeof(why)) < 0) {
		fprintf(stderr, "collect: %s\n", why);
		return 2;
	}
	k = run_kind_of(argv[1], &run);
	if (!k) {
		fprintf(stderr, "collect: %s/run.json names a kind of run this harness does not know (%s)\n", argv[1],
			run_kind_names());
		json_decref(run);
		return 2;
	}
	rc = k->collect(argv[1], run);
	json_decref(run);
	return rc;
}
