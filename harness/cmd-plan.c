// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness plan bench|crashtest|xfstests [OPTIONS]: make a run's
 * directory and print its plan, one complete `pmem-harness unit` command per
 * unit: a bench guest (bench.h), a crashtest scenario on one filesystem
 * (crash_plan.h), or an xfstests kernel on one filesystem (xfstests_run.h).
 * Any scheduler runs the lines (GNU parallel, a Slurm array, a for loop);
 * `pmem-harness collect RUN_DIR` merges what they wrote.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "builtin.h"
#include "../crash-inject/run/crash_plan.h"
#include "../lib/textfile.h"
#include "../xfstests/host/xfstests_run.h"

int cmd_plan(int argc, char **argv)
{
	char path[1100], *plan;
	struct bench b;
	int n, status;

	if (argc < 2 || is_help_arg(argv[1])) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: pmem-harness plan bench [bench options]\n"
			"       pmem-harness plan crashtest [crashtest options]\n"
			"       pmem-harness plan xfstests [xfstests options]\n"
			"Makes the run's directory and prints one 'pmem-harness unit' command per unit:\n"
			"  bench      one guest: a kernel, a filesystem, a repetition\n"
			"  crashtest  one scenario on one filesystem: its writer guest and the checking\n"
			"             of its images, in checker guests of its own (--checkers N each;\n"
			"             default 1, or PMEM_CHECKERS when the unit runs)\n"
			"  xfstests   one kernel on one filesystem: its tests, a guest at a time\n"
			"Run each line with any scheduler, then 'pmem-harness collect RUN_DIR'.\n"
			"The options are the command's own (pmem-harness plan bench|crashtest|xfstests --help).\n");
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "crashtest"))
		return crashtest_plan(argc - 1, argv + 1);
	if (!strcmp(argv[1], "xfstests"))
		return xfstests_plan(argc - 1, argv + 1);
	if (strcmp(argv[1], "bench")) {
		fprintf(stderr, "plan: '%.40s' is not planned into units: plan bench, crashtest or xfstests\n", argv[1]);
		return 2;
	}
	if (bench_parse(&b, argc - 1, argv + 1, "plan bench") < 0)
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
