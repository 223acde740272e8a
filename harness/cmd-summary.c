// SPDX-License-Identifier: GPL-2.0
/* pmem-harness summary RUN_DIR: print a bench run's summary again. */
#include <stdio.h>
#include <string.h>

#include "../results/summary.h"
#include "builtin.h"

int cmd_summary(int argc, char **argv)
{
	if (argc != 2 || is_help_arg(argv[1])) {
		fprintf(argc == 2 ? stdout : stderr, "usage: pmem-harness summary results/runs/RUN_ID\n");
		return argc == 2 ? 0 : 2;
	}
	return summary_print(argv[1], stdout) ? 1 : 0;
}
