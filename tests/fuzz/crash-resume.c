// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: what crashtest --resume reads of an interrupted run
 * (crash-inject/run/crash_resume.c). The input is the run's summary.json; or, when
 * it holds a NUL byte, its run.json before the NUL and its summary after
 * (none when nothing follows). The options are a real run's defaults. A run
 * opened holds an array of rows, and a row found is one of them, of the
 * scenario and filesystem asked for.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash-inject/run/crash_resume.h"
#include "fuzz.h"

static const char options_text[] =
	"{\"kernel\": \"6.1-aware\", \"filesystems\": [\"ext4\", \"xfs\"], \"program\": null, \"check\": null,"
	" \"mode\": \"shared\", \"seed\": 1, \"subsets\": 20, \"fence_points\": 4, \"keep\": false}";

static char dir[64], run_path[96], summary_path[96];
static json_t *options;

static void cleanup(void)
{
	unlink(run_path);
	unlink(summary_path);
	snprintf(run_path, sizeof(run_path), "%s/crash", dir);
	rmdir(run_path);
	rmdir(dir);
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/dev/shm/pmem-fuzz-resume.XXXXXX");
	if (!mkdtemp(dir)) {
		snprintf(dir, sizeof(dir), "/tmp/pmem-fuzz-resume.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	snprintf(run_path, sizeof(run_path), "%s/crash", dir);
	if (mkdir(run_path, 0700) < 0)
		abort();
	snprintf(run_path, sizeof(run_path), "%s/run.json", dir);
	snprintf(summary_path, sizeof(summary_path), "%s/crash/summary.json", dir);
	options = json_loads(options_text, 0, NULL);
	atexit(cleanup);
}

static void put(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	struct crash_resume r;
	json_t *row, *found;
	size_t i;

	if (!dir[0])
		setup();
	if (nul) {
		put(run_path, data, nul - data);
		if (size > (size_t)(nul - data) + 1)
			put(summary_path, nul + 1, size - (nul - data) - 1);
		else
			unlink(summary_path);
	} else {
		static const char run[] = "{\"kind\": \"crashtest\", \"options\": ";

		FILE *f = fopen(run_path, "w");

		if (!f || fprintf(f, "%s%s}", run, options_text) < 0 || fclose(f))
			abort();
		put(summary_path, data, size);
	}
	if (crash_resume_open(dir, "fuzz", options, &r) < 0) {
		if (r.rows)
			abort(); /* refused: nothing kept */
		return 0;
	}
	if (!json_is_array(r.rows) || (r.complete != 0 && r.complete != 1))
		abort();
	json_array_foreach(r.rows, i, row) {
		const char *sc = json_string_value(json_object_get(row, "scenario"));
		const char *fs = json_string_value(json_object_get(row, "fs"));

		if (!sc || !fs)
			continue;
		found = crash_resume_row(&r, sc, fs);
		if (!found || strcmp(json_string_value(json_object_get(found, "scenario")) ?: "", sc) ||
		    strcmp(json_string_value(json_object_get(found, "fs")) ?: "", fs))
			abort();
	}
	found = crash_resume_row(&r, "no such scenario", "ext4");
	if (found && (strcmp(json_string_value(json_object_get(found, "scenario")) ?: "", "no such scenario") ||
		      strcmp(json_string_value(json_object_get(found, "fs")) ?: "", "ext4")))
		abort();
	crash_resume_free(&r);
	return 0;
}
