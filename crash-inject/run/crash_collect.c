// SPDX-License-Identifier: GPL-2.0
/*
 * Collect a planned crashtest (crash_plan.h): crash/summary.json from the
 * units' rows in the order crashtest runs them, with the same keys as an
 * in-process run's, its tables and report; and every unit still missing,
 * by name and with the command that runs it. A run with units missing gets
 * a summary not marked complete, as an interrupted crashtest leaves one.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash_plan.h"
#include "../../lib/jsonio.h"
#include "../../lib/names.h"

int crash_collect(const char *run_dir, json_t *run)
{
	struct crash_options o = { .run_dir = "" };
	json_t *units = json_object_get(json_object_get(run, "plan"), "units"), *rows, *u, *doc, *c;
	const char *id = json_string_value(json_object_get(run, "run_id")), *sc, *fs;
	char dir[PATH_MAX];
	struct run_error err;
	double seconds = 0, boot_s = 0;
	int missing = 0, guests = 0, rc;
	size_t i;

	if (!json_is_array(units) || !id || !name_is_safe(id, sizeof(o.run_id))) {
		fprintf(stderr, "collect: %s/run.json is not a planned crashtest run: plan it with 'pmem-harness plan crashtest'\n",
			run_dir);
		return 2;
	}
	snprintf(o.run_id, sizeof(o.run_id), "%s", id);
	snprintf(o.run_dir, sizeof(o.run_dir), "%s", run_dir);
	o.build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	o.accel = json_string_value(json_object_get(json_object_get(run, "accel"), "name")) ?: "?";
	o.kernel = json_string_value(json_object_get(json_object_get(run, "options"), "kernel")) ?: "?";
	rows = json_array();
	json_array_foreach(units, i, u) {
		sc = json_string_value(json_object_get(u, "scenario")) ?: "";
		fs = json_string_value(json_object_get(u, "fs")) ?: "";
		crash_unit_dir(run_dir, sc, fs, dir, sizeof(dir));
		strncat(dir, "/row.json", sizeof(dir) - strlen(dir) - 1);
		doc = json_load_file(dir, 0, NULL);
		if (!json_is_object(json_object_get(doc, "row"))) {
			if (!missing++)
				fprintf(stderr, "collect: units not done (run each line, or plan again with --resume %s):\n",
					o.run_id);
			fputs("  ", stderr);
			crash_plan_line(stderr, o.build, run_dir, sc, fs);
			json_decref(doc);
			continue;
		}
		json_array_append(rows, json_object_get(doc, "row"));
		/* Each unit's own checker guests: their counts add up, and
		 * the units' seconds add up to what the run cost. */
		c = json_object_get(doc, "checker");
		if (json_integer_value(json_object_get(c, "parallel")) > o.checkers)
			o.checkers = json_integer_value(json_object_get(c, "parallel"));
		guests += json_integer_value(json_object_get(c, "guests"));
		boot_s += json_number_value(json_object_get(c, "boot_seconds"));
		seconds += json_number_value(json_object_get(doc, "seconds"));
		json_decref(doc);
	}
	if (missing) {
		rc = crash_summary_partial(&o, rows, &err) < 0 ? 2 : 1;
		if (rc == 2)
			fprintf(stderr, "collect: %s\n", err.context);
		fprintf(stderr, "collect: %zu of %zu units done; %s/crash/summary.json holds their rows, not complete\n",
			json_array_size(rows), json_array_size(units), run_dir);
		json_decref(rows);
		return rc;
	}
	rc = crash_summary_finish(&o, rows, seconds, guests, boot_s, json_array_size(rows), 0);
	json_decref(rows);
	return rc;
}
