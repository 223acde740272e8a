// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the results loaders. The input is one cell document of a
 * bench run (results/series.c reads it as reports and compare do) and, when
 * it parses as an object with "scenarios", a crashtest summary whose rows
 * become the verdict tables (results/verdicts.c) in every format.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "lib/rundir.h"
#include "results/series.h"
#include "results/table.h"
#include "results/verdicts.h"

static char dir[64], cell[128];
static FILE *devnull;

static void cleanup(void)
{
	if (run_dir_remove(dir) < 0)
		fprintf(stderr, "fuzz-results: could not remove %s: %m\n", dir);
}

static void setup(void)
{
	char path[128];
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/pmem-fuzz-results.%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/cells", dir);
	if ((mkdir(dir, 0700) < 0 && errno != EEXIST) || (mkdir(path, 0700) < 0 && errno != EEXIST))
		abort();
	snprintf(path, sizeof(path), "%s/run.json", dir);
	f = fopen(path, "w");
	if (!f || fputs("{\"schema\": 1, \"run_id\": \"fuzz\", \"kind\": \"bench\"}\n", f) < 0 || fclose(f))
		abort();
	atexit(cleanup);
	snprintf(cell, sizeof(cell), "%s/cells/0.json", dir);
	devnull = fopen("/dev/null", "w");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run r;
	json_t *doc;
	FILE *f;

	if (!dir[0])
		setup();
	f = fopen(cell, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	if (run_load(dir, &r) == 0) {
		for (size_t i = 0; i < r.n; i++)
			if (!run_find(&r, r.s[i].kernel, r.s[i].fs, r.s[i].mode, r.s[i].job, r.s[i].section,
				      r.s[i].metric->key))
				abort(); /* a loaded series cannot be found again */
		run_free(&r);
	}
	doc = json_loadb((const char *)data, size, 0, NULL);
	if (json_is_array(json_object_get(doc, "scenarios"))) {
		verdict_table(json_object_get(doc, "scenarios"), devnull, TABLE_TEXT);
		verdict_table(json_object_get(doc, "scenarios"), devnull, TABLE_MARKDOWN);
		verdict_matrix(json_object_get(doc, "scenarios"), devnull, TABLE_HTML, "fuzz");
		verdict_causes(json_object_get(doc, "scenarios"), devnull, TABLE_MARKDOWN);
	}
	json_decref(doc);
	return 0;
}
