// SPDX-License-Identifier: GPL-2.0
/* What bench reads back from a run on disk: see bench_resume.h. */
#define _GNU_SOURCE
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "../results/series.h"
#include "bench_resume.h"
#include "../lib/jsonio.h"
#include "../lib/names.h"
#include "../lib/rundir.h"

int bench_same_matrix(const json_t *old, const json_t *now)
{
	static const char *const keys[] = { "filesystems", "modes", "jobs", "reps", "kernels" };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!json_equal(json_object_get(old, keys[i]), json_object_get(now, keys[i])))
			return 0;
	return 1;
}

/*
 * A safe name (names.h) without "__", the separator of a cell's key: else
 * mode "sync" with job "a__b" and mode "sync__a" with job "b" make one key,
 * and one's results land in the other's cell.
 */
static int cell_name_ok(const char *s, size_t max)
{
	return name_is_safe(s, max) && !strstr(s, "__");
}

void bench_cells_add_unit(json_t *cells, const json_t *unit, const char *path)
{
	const char *kernel = json_string_value(json_object_get(unit, "kernel"));
	const char *fs = json_string_value(json_object_get(unit, "fs"));
	json_t *r, *cell;
	size_t k;

	json_array_foreach(json_object_get(unit, "results"), k, r) {
		const char *mode = json_string_value(json_object_get(r, "mode"));
		const char *job = json_string_value(json_object_get(r, "job"));
		char ckey[256];

		/* unit.json is ours, but a file on disk: check again. */
		if (!cell_name_ok(kernel, 64) || !cell_name_ok(fs, 16) || !cell_name_ok(mode, 32) ||
		    !cell_name_ok(job, 64)) {
			fprintf(stderr, "bench: %s: a result without safe kernel, fs, mode and job names (no '__': it separates them in a cell's name); skipped\n",
				path);
			continue;
		}
		snprintf(ckey, sizeof(ckey), "%s__%s__%s__%s", kernel, fs, mode, job);
		cell = json_object_get(cells, ckey);
		if (!cell) {
			cell = json_pack("{s:i, s:s, s:s, s:s, s:s, s:[]}", "schema", RUN_SCHEMA,
					 "kernel", kernel, "fs", fs, "mode", mode, "job", job, "reps");
			json_object_set_new(cells, ckey, cell);
		}
		json_array_append_new(json_object_get(cell, "reps"), json_pack("{s:O, s:s, s:O}",
			"rep", json_object_get(unit, "rep"), "kind", json_string_value(json_object_get(r, "kind")),
			"result", json_object_get(r, "result")));
	}
}

int bench_cells_write(const char *run_dir, char *why, size_t len)
{
	char pattern[PATH_MAX], path[PATH_MAX];
	json_t *cells = json_object(), *cell;
	const char *key;
	glob_t g;
	size_t i;
	int ret = 0;

	snprintf(pattern, sizeof(pattern), "%s/units/*/unit.json", run_dir);
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++) {
			json_t *unit = json_load_file(g.gl_pathv[i], 0, NULL);

			bench_cells_add_unit(cells, unit, g.gl_pathv[i]);
			json_decref(unit);
		}
		globfree(&g);
	}
	snprintf(path, sizeof(path), "%s/cells", run_dir);
	if (run_dir_make(path, why, len) < 0) {
		json_decref(cells);
		return -1;
	}
	json_object_foreach(cells, key, cell) {
		char name[PATH_MAX], *c;

		snprintf(name, sizeof(name), "%s/cells/%s.json", run_dir, key);
		for (c = strrchr(name, '/') + 1; *c; c++)
			if (*c == '+')
				*c = '-'; /* "sync+aware" -> "sync-aware" in file names only */
		/*
		 * The first failure stops: on a full disk the rest fail
		 * alike, and the next write rebuilds every cell from the units.
		 */
		ret = json_write_atomic_why(name, cell, why, len);
		if (ret < 0)
			break;
	}
	json_decref(cells);
	return ret;
}
