// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: what bench reads back on --resume (bench/bench_resume.c).
 * The input is a unit.json document, whose results are added to cells as
 * bench rebuilds them, and a run.json document, whose matrix is compared
 * with a real run's. A cell's key is made of safe names (it becomes a file
 * name) and says whose results it holds: a result lands in the cell of its
 * own kernel, fs, mode and job, never in another's.
 */
#include <stdio.h>

#include "bench/bench_resume.h"
#include "fuzz.h"
#include "lib/names.h"

static const char run[] =
	"{\"schema\": 1, \"filesystems\": [\"ext4\", \"xfs\"], \"modes\": [\"shared\", \"aware\"],"
	" \"jobs\": [\"workloads/jobs/faults.fio\"], \"reps\": 3, \"kernels\": {\"6.1-aware\": {}}}";

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key)) ?: "";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, 0, NULL);
	json_t *now = json_loads(run, 0, NULL), *cells = json_object(), *cell, *r, *rep;
	const char *key;
	char want[256];
	size_t i, k;

	(void)bench_same_matrix(doc, now);
	bench_cells_add_unit(cells, doc, "fuzz");
	json_object_foreach(cells, key, cell) {
		if (!name_is_safe(str(cell, "kernel"), 64) || !name_is_safe(str(cell, "fs"), 16) ||
		    !name_is_safe(str(cell, "mode"), 32) || !name_is_safe(str(cell, "job"), 64))
			abort();
		snprintf(want, sizeof(want), "%s__%s__%s__%s", str(cell, "kernel"), str(cell, "fs"), str(cell, "mode"),
			 str(cell, "job"));
		if (strcmp(key, want) || !json_is_array(json_object_get(cell, "reps")))
			abort();
		json_array_foreach(json_object_get(cell, "reps"), k, rep)
			if (!json_is_string(json_object_get(rep, "kind")) || !json_object_get(rep, "result"))
				abort();
	}
	/* A result in a cell is in the cell of its own names. */
	json_array_foreach(json_object_get(doc, "results"), i, r) {
		snprintf(want, sizeof(want), "%s__%s__%s__%s", str(doc, "kernel"), str(doc, "fs"), str(r, "mode"),
			 str(r, "job"));
		cell = json_object_get(cells, want);
		if (cell && (strcmp(str(cell, "kernel"), str(doc, "kernel")) || strcmp(str(cell, "fs"), str(doc, "fs")) ||
			     strcmp(str(cell, "mode"), str(r, "mode")) || strcmp(str(cell, "job"), str(r, "job"))))
			abort();
	}
	json_decref(cells);
	json_decref(now);
	json_decref(doc);
	return 0;
}
