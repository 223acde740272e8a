// SPDX-License-Identifier: GPL-2.0
/*
 * An xfstests run's results from its units' documents (xfstests_run.h):
 * xfstests.json (every result, each kernel compared with its -stock
 * baseline; "complete" once every unit is in), summary.md (the table) and
 * the exit status. The in-process run merges after each unit, and collect
 * merges a planned run's units the same way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../results/xfstests.h"
#include "../../lib/jsonio.h"
#include "xfstests_run.h"

#define MAX_KERNELS 15

static int write_summary(const char *run_dir, json_t *doc, int *regressions)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/xfstests.json", run_dir);
	if (json_write_atomic(path, doc) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/summary.md", run_dir);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "xfstests: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	*regressions = xt_table(f, json_object_get(doc, "results"), json_object_get(doc, "kernels"),
				json_object_get(doc, "fs"));
	return fclose(f) ? -1 : 0;
}

static void print_file(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");

	if (f && getdelim(&text, &len, '\0', f) > 0)
		fputs(text, stdout);
	free(text);
	if (f)
		fclose(f);
}

int xt_collect(const char *run_dir, json_t *run, int report)
{
	json_t *units = json_object_get(json_object_get(run, "plan"), "units"), *kj = json_object_get(run, "kernels");
	const char *build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build", *kernels[MAX_KERNELS], *k, *fs;
	char dir[PATH_MAX], path[PATH_MAX];
	int regressions = 0, missing = 0, failed = 0;
	json_t *doc, *unit, *results, *r;
	size_t i, j, nk = 0;

	if (!json_is_array(units) || !json_is_array(kj)) {
		fprintf(stderr, "collect: %s/run.json is not a planned xfstests run: plan it with 'pmem-harness plan xfstests'\n",
			run_dir);
		return 2;
	}
	json_array_foreach(kj, i, r)
		if (nk < MAX_KERNELS && json_is_string(r))
			kernels[nk++] = json_string_value(r);
	doc = json_pack("{s:i, s:s, s:O, s:O, s:O, s:[], s:{}}", "schema", 1, "kind", "xfstests", "run_id",
			json_object_get(run, "run_id"), "kernels", kj, "fs", json_object_get(run, "fs"), "results",
			"environments");
	if (!doc)
		return 2;
	results = json_object_get(doc, "results");
	json_array_foreach(units, i, unit) {
		k = json_string_value(json_object_get(unit, "kernel")) ?: "";
		fs = json_string_value(json_object_get(unit, "fs")) ?: "";
		xt_unit_dir(run_dir, k, fs, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/unit.json", dir);
		r = json_load_file(path, 0, NULL);
		if (!json_is_array(json_object_get(r, "results"))) {
			if (report && !missing)
				fprintf(stderr, "collect: units not done (run each line):\n");
			if (report) {
				fputs("  ", stderr);
				xt_plan_line(stderr, build, run_dir, k, fs);
			}
			missing++;
			json_decref(r);
			continue;
		}
		json_array_extend(results, json_object_get(r, "results"));
		snprintf(path, sizeof(path), "%s/%s", k, fs);
		json_object_set(json_object_get(doc, "environments"), path, json_object_get(r, "environment"));
		json_decref(r);
	}
	json_array_foreach(results, j, r)
		failed += !strcmp(json_string_value(json_object_get(r, "status")) ?: "", "fail");
	xt_compare_baselines(results, kernels, nk);
	if (!missing)
		json_object_set_new(doc, "complete", json_true());
	if (write_summary(run_dir, doc, &regressions) < 0) {
		fprintf(stderr, "xfstests: stopped: results so far are in %s\n", run_dir);
		json_decref(doc);
		return 2;
	}
	json_decref(doc);
	if (!report)
		return 0;
	snprintf(path, sizeof(path), "%s/summary.md", run_dir);
	print_file(path);
	printf("\n%d failed; %d regression%s against the baseline (a -stock kernel of the same version). "
	       "Results: %s\n", failed, regressions, regressions == 1 ? "" : "s", run_dir);
	if (missing)
		fprintf(stderr, "collect: %zu of %zu units done; xfstests.json holds their results, not complete\n",
			json_array_size(units) - missing, json_array_size(units));
	return regressions || missing ? 1 : 0;
}
