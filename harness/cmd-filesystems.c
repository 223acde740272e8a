// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness filesystems: the filesystem table's names for shell scripts,
 * so that they name no filesystem themselves (crash-inject/crashbench.sh,
 * the PMDK scripts of targets/pmdk/).
 */
#include <stdio.h>
#include <string.h>

#include "../lib/filesystems.h"
#include "builtin.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: pmem-harness filesystems [--default KIND]\n"
		   "Prints the names of vm-images/filesystems on one line, blanks between;\n"
		   "--default KIND: only those a run of KIND takes when given none (the table's\n"
		   "default column: bench, quick, crashtest, program, xfstests).\n");
}

int cmd_filesystems(int argc, char **argv)
{
	const char *names;

	if (argc > 1 && is_help_arg(argv[1])) {
		usage(stdout);
		return 0;
	}
	if (argc == 1) {
		names = fs_names(NULL);
	} else if (argc == 3 && !strcmp(argv[1], "--default")) {
		names = fs_defaults(argv[2]);
		if (!names[0]) {
			fprintf(stderr, "filesystems: no row of vm-images/filesystems is a default for '%s' (see its default column)\n",
				argv[2]);
			return 2;
		}
	} else {
		usage(stderr);
		return 2;
	}
	/* fs_names() puts ", " between names; scripts split on blanks. */
	for (const char *p = names; *p; p++)
		if (*p != ',' && putchar(*p) == EOF)
			return 1;
	return putchar('\n') == EOF ? 1 : 0;
}
