// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness plan KIND [OPTIONS]: make a run's directory and print its
 * plan, one complete `pmem-harness unit` command per unit (run_kinds.c
 * says what a unit of each kind is). Any scheduler runs the lines (GNU
 * parallel, a Slurm array, a for loop); `pmem-harness collect RUN_DIR`
 * merges what they wrote.
 */
#include <stdio.h>

#include "builtin.h"
#include "run_kinds.h"

int cmd_plan(int argc, char **argv)
{
	const struct run_kind *k;

	if (argc < 2 || is_help_arg(argv[1])) {
		FILE *f = argc < 2 ? stderr : stdout;

		for (int i = 0; i < run_kinds_count; i++)
			fprintf(f, "%s pmem-harness plan %s [%s options]\n", i ? "      " : "usage:", run_kinds[i].name,
				run_kinds[i].name);
		fprintf(f, "Makes the run's directory and prints one 'pmem-harness unit' command per unit:\n");
		for (int i = 0; i < run_kinds_count; i++)
			fprintf(f, "  %-10s %s\n", run_kinds[i].name, run_kinds[i].unit_is);
		fprintf(f, "Run each line with any scheduler, then 'pmem-harness collect RUN_DIR'.\n"
			   "The options are the command's own (pmem-harness plan KIND --help).\n");
		return argc < 2 ? 2 : 0;
	}
	k = run_kind_named(argv[1]);
	if (!k) {
		fprintf(stderr, "plan: '%.40s' is not planned into units: plan %s\n", argv[1], run_kind_names());
		return 2;
	}
	return k->plan(argc - 1, argv + 1);
}
