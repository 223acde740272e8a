// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness plan bench [OPTIONS]: make a bench run's directory and print
 * its plan, one complete `pmem-harness unit` command per guest (bench.h).
 * Any scheduler runs the lines (GNU parallel, a Slurm array, a for loop);
 * `pmem-harness collect RUN_DIR` merges what they wrote.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "builtin.h"
#include "textfile.h"

int cmd_plan(int argc, char **argv)
{
	char path[1100], *plan;
	struct bench b;
	int n, status;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: pmem-harness plan bench [bench options] (see pmem-harness plan bench --help)\n");
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "bench")) {
		fprintf(stderr, "plan: only bench is planned into units; crashtest and xfstests run their guests themselves\n");
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
