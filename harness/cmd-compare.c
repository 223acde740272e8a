// SPDX-License-Identifier: GPL-2.0
/* pmem-harness compare RUN_A RUN_B [RUN_C ...]: runs side by side. */
#include <stdio.h>
#include <string.h>

#include "../results/compare.h"
#include "builtin.h"

int cmd_compare(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: pmem-harness compare results/runs/A results/runs/B [more runs]\n"
		       "Pairs cells by filesystem, job, section, mode and metric; the kernel is part of\n"
		       "the key only when a run holds several kernels.\n");
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: pmem-harness compare results/runs/A results/runs/B [more runs]\n");
		return 2;
	}
	return compare_runs((const char *const *)argv + 1, argc - 1, stdout);
}
