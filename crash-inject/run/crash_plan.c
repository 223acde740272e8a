// SPDX-License-Identifier: GPL-2.0
/*
 * A crashtest's plan and its units' row documents (crash_plan.h): what a
 * scheduler runs, and how a unit says it is done.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash_plan.h"
#include "../../lib/jsonio.h"
#include "../../lib/shell_word.h"
#include "../../lib/textfile.h"

void crash_unit_dir(const char *run_dir, const char *scenario, const char *fs, char *out, size_t len)
{
	snprintf(out, len, "%s/crash/%s__%s", run_dir, scenario, fs);
}

int crash_unit_done(const char *dir)
{
	char path[PATH_MAX];
	json_t *doc;
	int done;

	snprintf(path, sizeof(path), "%s/row.json", dir);
	doc = json_load_file(path, 0, NULL);
	done = json_is_object(json_object_get(doc, "row"));
	json_decref(doc);
	return done;
}

void crash_plan_line(FILE *f, const char *build, const char *run_dir, const char *scenario, const char *fs)
{
	char harness[PATH_MAX];

	snprintf(harness, sizeof(harness), "%s/pmem-harness", build);
	unit_command(f, harness, run_dir, scenario, fs, NULL);
}

/* plan.txt, written whole and then renamed: a reader never sees half a plan. */
static int write_lines(const struct crash_options *o, json_t *units, int *planned, char *why, size_t len)
{
	char path[PATH_MAX], dir[PATH_MAX];
	struct text_out out;
	const char *sc, *fs;
	json_t *u;
	size_t i;

	snprintf(path, sizeof(path), "%s/plan.txt", o->run_dir);
	if (text_file_begin(&out, path, why, len) < 0)
		return -1;
	*planned = 0;
	json_array_foreach(units, i, u) {
		sc = json_string_value(json_object_get(u, "scenario"));
		fs = json_string_value(json_object_get(u, "fs"));
		crash_unit_dir(o->run_dir, sc, fs, dir, sizeof(dir));
		if (crash_unit_done(dir))
			continue;
		crash_plan_line(out.f, o->build, o->run_dir, sc, fs);
		++*planned;
	}
	return text_file_commit(&out, why, len);
}

int crash_plan_write(const struct crash_options *o, json_t *units, int checkers, int *planned, char *why,
		     size_t len)
{
	char path[PATH_MAX];
	json_t *run;
	int rc;

	snprintf(path, sizeof(path), "%s/run.json", o->run_dir);
	run = json_load_file(path, 0, NULL);
	if (!run) {
		snprintf(why, len, "cannot read %s", path);
		return -1;
	}
	/* accel_auto: an "auto" run's ADR rows may take TCG on a KVM host. */
	json_object_set_new(run, "plan", json_pack("{s:O, s:o, s:b}", "units", units, "checkers",
						   checkers > 0 ? json_integer(checkers) : json_null(),
						   "accel_auto", o->accel_auto));
	rc = json_write_atomic_why(path, run, why, len);
	json_decref(run);
	return rc < 0 ? -1 : write_lines(o, units, planned, why, len);
}

void crash_plan_print(const char *path, FILE *f)
{
	char *plan = read_text_file(path);

	fputs(plan ? plan : "", f);
	free(plan);
}

int crash_row_write(const char *dir, json_t *row, int checkers, int guests, double boot_s, double seconds,
		    char *why, size_t len)
{
	char path[PATH_MAX];
	json_t *doc;
	int rc;

	snprintf(path, sizeof(path), "%s/row.json", dir);
	doc = json_pack("{s:i, s:O, s:{s:i, s:i, s:f}, s:f}", "schema", 1, "row", row, "checker", "parallel", checkers,
			"guests", guests, "boot_seconds", boot_s, "seconds", seconds);
	rc = json_write_atomic_why(path, doc, why, len);
	json_decref(doc);
	return rc;
}
