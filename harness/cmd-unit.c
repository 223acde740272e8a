// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness unit RUN_DIR WORDS...: one unit of a planned run, as a line
 * of its plan.txt runs it under any scheduler. The run's kind (run.json)
 * says what a unit is and which words name it (run_kinds.c). A unit writes
 * only its own directory, and one that is done is not run again, so a
 * scheduler may retry a line safely.
 */
#include <limits.h>
#include <stdio.h>

#include "../lib/rundir.h"
#include "builtin.h"
#include "run_kinds.h"

int cmd_unit(int argc, char **argv)
{
	const struct run_kind *k;
	json_t *run;
	char dir[PATH_MAX], why[512];
	int rc;

	if (argc == 2 && is_help_arg(argv[1])) {
		for (int i = 0; i < run_kinds_count; i++)
			printf("%s pmem-harness unit RUN_DIR %-14s (%s)\n", i ? "      " : "usage:", run_kinds[i].unit_args,
			       run_kinds[i].name);
		printf("Runs one unit of a run 'pmem-harness plan' made; plan.txt lists them all.\n");
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: pmem-harness unit RUN_DIR ... (a line of the run's plan.txt)\n");
		return 2;
	}
	/* What the run makes under it must still fit (run_dir_name()). */
	if (run_dir_name(dir, sizeof(dir), argv[1], NULL, why, sizeof(why)) < 0) {
		fprintf(stderr, "unit: %s\n", why);
		return 2;
	}
	k = run_kind_of(argv[1], &run);
	if (!k) {
		fprintf(stderr, "unit: %s/run.json names a kind of run this harness does not know (%s)\n", argv[1],
			run_kind_names());
		json_decref(run);
		return 2;
	}
	if (argc != 2 + k->unit_nargs) {
		fprintf(stderr, "usage: pmem-harness unit RUN_DIR %s (a line of the %s run's plan.txt)\n", k->unit_args,
			k->name);
		json_decref(run);
		return 2;
	}
	rc = k->unit(argv[1], run, argv + 2);
	json_decref(run);
	return rc;
}
