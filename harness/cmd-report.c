// SPDX-License-Identifier: GPL-2.0
/* pmem-harness report RUN_DIR: the run's HTML page and markdown summary. */
#include <stdio.h>

#include "../results/report.h"
#include "builtin.h"

int cmd_report(int argc, char **argv)
{
	if (argc != 2 || is_help_arg(argv[1])) {
		fprintf(argc == 2 ? stdout : stderr,
			"usage: pmem-harness report results/runs/RUN_ID\n"
			"Writes RUN_ID/report/index.html (self-contained), report.md and one gnuplot\n"
			"script and SVG per plot, from the run's JSON documents only.\n");
		return argc == 2 ? 0 : 2;
	}
	return report_and_say(argv[1]) ? 1 : 0;
}
