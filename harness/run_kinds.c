// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../bench/bench.h"
#include "../crash-inject/run/crash_plan.h"
#include "../xfstests/host/xfstests_run.h"
#include "run_kinds.h"

static int crashtest_unit_words(const char *run_dir, json_t *run, char **w)
{
	return crashtest_unit(run_dir, run, w[0], w[1]);
}

static int xfstests_unit_words(const char *run_dir, json_t *run, char **w)
{
	return xfstests_unit(run_dir, run, w[0], w[1]);
}

static int xfstests_collect(const char *run_dir, json_t *run)
{
	return xt_collect(run_dir, run, 1);
}

const struct run_kind run_kinds[] = {
	{ "bench", "KERNEL FS REP", 3, "one guest: a kernel, a filesystem, a repetition",
	  bench_plan_main, bench_unit_main, bench_collect_main },
	{ "crashtest", "SCENARIO FS", 2,
	  "one scenario on one filesystem: its writer guest and the checking\n"
	  "             of its images, in checker guests of its own (--checkers N each;\n"
	  "             default 1, or PMEM_CHECKERS when the unit runs)",
	  crashtest_plan, crashtest_unit_words, crash_collect },
	{ "xfstests", "KERNEL FS", 2, "one kernel on one filesystem: its tests, a guest at a time",
	  xfstests_plan, xfstests_unit_words, xfstests_collect },
};
const int run_kinds_count = sizeof(run_kinds) / sizeof(run_kinds[0]);

const struct run_kind *run_kind_named(const char *name)
{
	for (int i = 0; i < run_kinds_count; i++)
		if (!strcmp(run_kinds[i].name, name))
			return &run_kinds[i];
	return NULL;
}

const struct run_kind *run_kind_of(const char *run_dir, json_t **run)
{
	char path[PATH_MAX];
	const char *kind;

	snprintf(path, sizeof(path), "%s/run.json", run_dir);
	*run = json_load_file(path, 0, NULL);
	kind = json_string_value(json_object_get(*run, "kind"));
	return run_kind_named(kind ? kind : "bench");
}

const char *run_kind_names(void)
{
	static char names[200];
	size_t n = 0;

	for (int i = 0; i < run_kinds_count && n < sizeof(names); i++)
		n += snprintf(names + n, sizeof(names) - n, "%s%s", run_kinds[i].name,
			      i + 2 < run_kinds_count ? ", " : i + 1 < run_kinds_count ? " or " : "");
	return names;
}
