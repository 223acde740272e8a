// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness collect RUN_DIR: merge a planned bench run's finished units
 * into its cells, summary and report, and name the units still missing.
 * Exit status 0 when every planned unit is done, 1 when some are missing.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "builtin.h"

int cmd_collect(int argc, char **argv)
{
	struct bench b;
	int missing;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: pmem-harness collect RUN_DIR\n"
		       "Merges the units of a planned run into cells, summary and report.\n");
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: pmem-harness collect RUN_DIR\n");
		return 2;
	}
	if (bench_load(&b, argv[1], "collect") < 0)
		return 2;
	missing = bench_collect(&b, stdout);
	if (missing < 0)
		return 2;
	return missing ? 1 : 0;
}
