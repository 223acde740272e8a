// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness: the host-side driver. Commands are a table; each lives in its
 * own cmd-*.c and answers --help.
 */
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../crash-inject/judge/judge.h"
#include "../results/series.h"
#include "../bench/unit_docs.h"
#include "builtin.h"
#include "../vm/runinfo.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "run", cmd_run, "boot one guest and run a job script in it" },
	{ "probe", cmd_probe, "report the QEMU version and the accelerator in use" },
	{ "bench", cmd_bench, "run the benchmark matrix and print its summary" },
	{ "plan", cmd_plan, "write a bench, crashtest or xfstests run's plan: one pmem-harness unit command per unit" },
	{ "unit", cmd_unit, "run one unit of a planned run" },
	{ "collect", cmd_collect, "merge a planned run's units into its results and name those missing" },
	{ "summary", cmd_summary, "print the summary of a bench run" },
	{ "compare", cmd_compare, "put bench runs side by side, with the noise rule" },
	{ "report", cmd_report, "write a run's HTML page and markdown summary with plots" },
	{ "crashtest", cmd_crashtest, "inject simulated power loss and judge every crash image" },
	{ "crashcheck", cmd_crashcheck, "judge one kept crash image again" },
	{ "crashbench", cmd_crashbench, "time the checker on a fixed set of kept crash images" },
	{ "xfstests", cmd_xfstests, "run xfstests' DAX and mmap tests, each kernel beside its stock baseline" },
	{ "filesystems", cmd_filesystems, "print the filesystem table's names, or those a kind of run takes by default" },
};

int is_help_arg(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

/*
 * The project makes no releases: its version is the git revision of the
 * tree this binary sits in (read as run.json reads it), and the schemas
 * say which result documents it reads and writes.
 */
static int version(void)
{
	char exe[PATH_MAX], rev[64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = 0;
	git_revision(n > 0 ? dirname(exe) : ".", rev, sizeof(rev));
	printf("pmem-harness git %s\n"
	       "schemas: run %d, unit documents %d, checker reports %d\n",
	       rev, RUN_SCHEMA, UNIT_DOCS_SCHEMA, CHECK_DOC_SCHEMA);
	return 0;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: pmem-harness COMMAND [--help | -h | options]\n"
		   "       pmem-harness help COMMAND\n"
		   "       pmem-harness --version\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
}

int main(int argc, char **argv)
{
	char *help_argv[4];
	size_t i;
	int ret;

	/* A guest that dies closes its sockets; that is a result, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "--version"))
		return version();
	/* help COMMAND is COMMAND --help. */
	if (argc == 3 && !strcmp(argv[1], "help")) {
		help_argv[0] = argv[0];
		help_argv[1] = argv[2];
		help_argv[2] = "--help";
		help_argv[3] = NULL;
		argv = help_argv;
	}
	if (argc < 2 || is_help_arg(argv[1]) || !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		ret = commands[i].fn(argc - 1, argv + 1);
		if (fflush(stdout) || ferror(stdout)) {
			perror("pmem-harness: writing to stdout");
			return 1;
		}
		return ret;
	}
	fprintf(stderr, "pmem-harness: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
