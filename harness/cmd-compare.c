// SPDX-License-Identifier: GPL-2.0
/* pmem-harness compare [--html DIR] RUN_A RUN_B [RUN_C ...]: runs side by side. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../results/compare.h"
#include "../results/report.h"
#include "builtin.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: pmem-harness compare [--html DIR] results/runs/A results/runs/B [more runs]\n"
		   "       pmem-harness compare [--html DIR] results/runs/RUN   (a run of several kernels)\n"
		   "Pairs cells by filesystem, job, section, mode and metric; the kernel is part of\n"
		   "the key only when a run holds several kernels. A single run of several kernels\n"
		   "compares its kernels. --html DIR also writes DIR/index.html: the table and the\n"
		   "runs' plots overlaid.\n");
}

int cmd_compare(int argc, char **argv)
{
	const char *html_dir = NULL;
	char html[PATH_MAX];
	int rc;

	if (argc > 1 && is_help_arg(argv[1])) {
		usage(stdout);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--html")) {
		html_dir = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	rc = compare_runs((const char *const *)argv + 1, argc - 1, stdout);
	if (rc || !html_dir)
		return rc;
	rc = report_compare((const char *const *)argv + 1, argc - 1, html_dir, html, sizeof(html));
	if (rc < 0)
		return 1;
	printf("\ncomparison page: %s%s\n", html, rc ? " (some plots are missing, see the messages above)" : "");
	return rc;
}
