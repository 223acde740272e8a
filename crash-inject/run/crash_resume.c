// SPDX-License-Identifier: GPL-2.0
/* Finishing an interrupted crashtest: see crash_resume.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crash_resume.h"

/* The first option that differs, for the user's one line. */
static const char *first_difference(const json_t *was, const json_t *now)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)now, key, v)
		if (!json_equal(v, json_object_get(was, key)))
			return key;
	json_object_foreach((json_t *)was, key, v)
		if (!json_object_get(now, key))
			return key;
	return NULL;
}

int crash_resume_open(const char *run_dir, const char *run_id, const json_t *options, struct crash_resume *r)
{
	char path[PATH_MAX];
	json_t *run, *summary, *was;
	const char *diff;

	r->rows = NULL;
	r->complete = 0;
	snprintf(path, sizeof(path), "%s/run.json", run_dir);
	run = json_load_file(path, 0, NULL);
	if (!run || strcmp(json_string_value(json_object_get(run, "kind")) ?: "", "crashtest")) {
		fprintf(stderr, "crashtest: no crashtest run to resume at %s\n", run_dir);
		json_decref(run);
		return -1;
	}
	was = json_object_get(run, "options");
	if (!json_is_object(was)) {
		fprintf(stderr, "crashtest: run %s was made by an older harness and cannot be resumed: start a new run\n",
			run_id);
		json_decref(run);
		return -1;
	}
	diff = first_difference(was, options);
	if (diff) {
		fprintf(stderr, "crashtest: run %s was made with another %s; resume it with the options it started with, or start a new run\n",
			run_id, diff);
		json_decref(run);
		return -1;
	}
	json_decref(run);
	/* No summary: the run was cut off in its first scenario. */
	snprintf(path, sizeof(path), "%s/crash/summary.json", run_dir);
	summary = json_load_file(path, 0, NULL);
	if (!summary && !access(path, F_OK)) {
		fprintf(stderr, "crashtest: %s cannot be read: move it away to run every scenario again\n", path);
		return -1;
	}
	r->complete = json_is_true(json_object_get(summary, "complete"));
	r->rows = json_incref(json_object_get(summary, "scenarios"));
	if (!json_is_array(r->rows)) {
		json_decref(r->rows);
		r->rows = json_array();
	}
	json_decref(summary);
	return 0;
}

json_t *crash_resume_row(const struct crash_resume *r, const char *scenario, const char *fs)
{
	size_t i;
	json_t *row;

	json_array_foreach(r->rows, i, row)
		if (!strcmp(json_string_value(json_object_get(row, "scenario")) ?: "", scenario) &&
		    !strcmp(json_string_value(json_object_get(row, "fs")) ?: "", fs))
			return row;
	return NULL;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (type == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

int crash_resume_clear(const char *scenario_dir)
{
	if (access(scenario_dir, F_OK) && errno == ENOENT)
		return 0;
	/* FTW_PHYS: a link is removed, never followed. */
	if (nftw(scenario_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0) {
		fprintf(stderr, "crashtest: cannot remove %s, left by the interrupted attempt: %s\n", scenario_dir,
			strerror(errno));
		return -1;
	}
	return 0;
}

void crash_resume_free(struct crash_resume *r)
{
	json_decref(r->rows);
	r->rows = NULL;
}
