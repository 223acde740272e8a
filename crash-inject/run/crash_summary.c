// SPDX-License-Identifier: GPL-2.0
/*
 * A crash run's own documents: run.json (what ran where, and the options
 * that decide its verdicts), crash/summary.json (a row per scenario judged,
 * saved after each one, marked complete at the end), the one line a run
 * stops with, and the tables it ends with.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../results/series.h"
#include "../../results/verdicts.h"
#include "../../results/report.h"
#include "crash.h"
#include "../../lib/diskfull.h"
#include "../../lib/jsonio.h"
#include "../../vm/runinfo.h"
#include "program_line.h"
#include "user_program.h"

/* The filesystems of a --fs list, in its order. */
static json_t *fs_list(const char *fss)
{
	char *list = strdup(fss), *fs, *save;
	json_t *a = json_array();

	for (fs = strtok_r(list, " ,", &save); fs; fs = strtok_r(NULL, " ,", &save))
		json_array_append_new(a, json_string(fs));
	free(list);
	return a;
}

/*
 * A program from a PMDK build (targets/pmdk/build.sh: DIR/bin/NAME beside
 * DIR/info): which PMDK and which of its libraries it was linked with, as
 * the run records it. NULL for any other program.
 */
static json_t *pmdk_build_json(const char *spec)
{
	char info[4200], line[512];
	const char *slash = strrchr(spec, '/'), *name = slash ? slash + 1 : spec;
	json_t *doc;
	FILE *f;
	int n = 0;

	if (!slash || slash - spec < 4 || strncmp(slash - 4, "/bin", 4))
		return NULL;
	snprintf(info, sizeof(info), "%.*s/info", (int)(slash - spec - 4), spec);
	f = fopen(info, "r");
	if (!f)
		return NULL;
	doc = json_object();
	/* Bounded: the file is ours, but nothing read is trusted to be small. */
	while (n++ < 64 && fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');

		line[strcspn(line, "\n")] = '\0';
		if (eq && eq > line) {
			*eq = '\0';
			json_object_set_new(doc, line, json_string(eq + 1));
		}
	}
	fclose(f);
	json_object_set_new(doc, "library", json_string(strstr(name, "-debug") ? "debug (PMDK's ASSERTs on)" :
							  strstr(name, "-aware") ? "nondebug, mmap asking MAP_PMEM_AWARE" :
										     "nondebug"));
	return doc;
}

/* A user program as given (its command line), its files hashed, or null. */
static json_t *program_json(const struct crash_options *o, const char *line)
{
	struct program_line pl;
	char hex[32], bin[PATH_MAX];
	json_t *doc, *pmdk;

	if (!line)
		return json_null();
	snprintf(bin, sizeof(bin), "%s/pmdk/bin", o->build);
	if (program_line_parse("PROGRAM", line, bin, &pl) < 0 || user_program_hash(pl.spec, hex, sizeof(hex)) < 0)
		return json_pack("{s:s}", "files", line);
	doc = json_pack("{s:s, s:s}", "files", line, "xxh3", hex);
	pmdk = pmdk_build_json(pl.spec);
	if (pmdk)
		json_object_set_new(doc, "pmdk", pmdk);
	return doc;
}

json_t *crash_run_options(const struct crash_options *o)
{
	json_t *opts = json_pack("{s:s, s:o, s:s?, s:s*, s:s?, s:o, s:o, s:s, s:s?, s:s?, s:I, s:I, s:I, s:I, s:b}", "kernel", o->kernel,
			 "filesystems", fs_list(o->filesystems), "scenarios", o->scenarios,
			 "scenario_table", o->scenario_table, "platform", o->platform,
			 "program", program_json(o, o->program), "check", program_json(o, o->check), "mode", o->mode,
			 "cflags", o->cflags, "ldlibs", o->ldlibs, "seed", (json_int_t)o->seed, "subsets",
			 (json_int_t)o->adr.subsets, "fence_points", (json_int_t)o->adr.fence_max, "fence_period",
			 (json_int_t)o->adr.fence_period, "keep", o->keep);
	json_object_set_new(opts, "structured", json_integer(o->adr.structured));
	json_object_set_new(opts, "torn", json_integer(o->adr.torn));
	json_object_set_new(opts, "history", json_integer(o->adr.history));
	if (o->recover)
		json_object_set_new(opts, "recover", program_json(o, o->recover));
	return opts;
}

int crash_run_record(const struct crash_options *o, const char *accel_reason, json_t *options)
{
	json_t *doc = json_pack("{s:i, s:s, s:s, s:{s:o}, s:[], s:{s:s, s:s}}", "schema", RUN_SCHEMA,
				"run_id", o->run_id, "kind", "crashtest", "kernels", o->kernel,
				run_kernel_info(o->build, o->kernel) ?: json_null(), "filesystems",
				"accel", "name", o->accel, "reason", accel_reason);
	char *list = strdup(o->filesystems), *fs, *sv, path[PATH_MAX], why[WHY_MAX];
	struct run_error stop;

	for (fs = strtok_r(list, " ,", &sv); fs; fs = strtok_r(NULL, " ,", &sv))
		json_array_append_new(json_object_get(doc, "filesystems"), json_string(fs));
	free(list);
	json_object_update_new(doc, run_environment());
	json_object_set(doc, "options", options);
	snprintf(path, sizeof(path), "%s/run.json", o->run_dir);
	if (json_write_atomic_why(path, doc, why, sizeof(why)) < 0) {
		int err = errno;

		json_decref(doc);
		if (!disk_full_errno(err)) {
			fprintf(stderr, "crashtest: %s\n", why);
			return 2;
		}
		/* Without run.json there is nothing to resume: no run is
		 * left behind, and the same command starts it again. */
		disk_full_writing(&stop, o->run_dir, path, err);
		snprintf(path, sizeof(path), "%s/crash", o->run_dir);
		rmdir(path);
		rmdir(o->run_dir);
		fprintf(stderr, "crashtest: run %s stopped: %s; no scenario has run; free space, then run the same command again\n",
			o->run_id, stop.context);
		return 1;
	}
	json_decref(doc);
	return 0;
}

/* Save the run's summary: 0, or -1 with err set (a full disk: ENOSPC or EDQUOT). */
static int save_summary(const char *run_dir, json_t *doc, struct run_error *err)
{
	char path[PATH_MAX], dir[PATH_MAX], why[WHY_MAX];
	int code;

	snprintf(path, sizeof(path), "%s/crash/summary.json", run_dir);
	if (!json_write_atomic_why(path, doc, why, sizeof(why)))
		return 0;
	code = errno ? errno : EIO;
	if (disk_full_errno(code)) {
		snprintf(dir, sizeof(dir), "%s/crash", run_dir);
		disk_full_writing(err, dir, path, code);
	} else {
		run_error_set(err, code, "%s", why);
	}
	return -1;
}

int crash_summary_partial(const struct crash_options *o, json_t *rows, struct run_error *err)
{
	json_t *doc = json_pack("{s:i, s:s, s:s, s:s, s:O, s:b}", "schema", 1, "run_id", o->run_id, "accel", o->accel,
				"kernel", o->kernel, "scenarios", rows, "complete", 0);
	int rc = save_summary(o->run_dir, doc, err);

	json_decref(doc);
	return rc;
}

void crash_say_stopped(const struct crash_options *o, const char *where, const struct run_error *err, size_t held,
		       int all_judged)
{
	fprintf(stderr, "crashtest: %s stopped: %s; the summary holds the %zu scenario%s judged %s (%s/crash/summary.json); %s, then finish the run with --resume %s (make crashtest RESUME=%s)\n",
		where, err->context, held, held == 1 ? "" : "s", all_judged ? "so far, the run not marked complete" : "before",
		o->run_dir, disk_full_errno(err->code) ? "free space" : "make it writable", o->run_id, o->run_id);
}

int crash_summary_finish(const struct crash_options *o, json_t *rows, double seconds, int guests, double boot_s,
			 size_t held, int failures)
{
	long long images = 0, twins = 0;
	double check_s = 0;
	struct run_error err;
	char where[200];
	int unexpected = 0, rc;
	size_t k;
	json_t *row, *doc;

	json_array_foreach(rows, k, row) {
		images += json_integer_value(json_object_get(row, "images"));
		check_s += json_real_value(json_object_get(row, "check_seconds"));
		twins += json_integer_value(json_object_get(row, "deduplicated"));
		unexpected += json_array_size(json_object_get(row, "unexpected_images")) > 0 ||
			      json_is_true(json_object_get(row, "missed")) ||
			      json_object_get(row, "protocol_error") || json_object_get(row, "writer_failure") ||
			      json_is_true(json_object_get(row, "model_incomplete")) ||
			      json_object_get(json_object_get(row, "blackbox"), "target_problem") ||
			      (json_integer_value(json_object_get(row, "acked_not_durable")) > 0 &&
			       !strcmp(json_string_value(json_object_get(row, "expect")) ?: "", "intact"));
	}
	doc = json_pack("{s:i, s:s, s:s, s:s, s:O, s:b, s:f, s:I, s:{s:i, s:i, s:f}}", "schema", 1, "run_id",
			o->run_id, "accel", o->accel, "kernel", o->kernel, "scenarios", rows, "complete", 1,
			"seconds", seconds, "images", (json_int_t)images, "checker", "parallel",
			o->checkers, "guests", guests, "boot_seconds", boot_s);
	if (o->resume)
		json_object_set_new(doc, "resumed", json_true());
	rc = save_summary(o->run_dir, doc, &err);
	json_decref(doc);
	if (rc < 0) {
		/* Judged, but not saved as complete: no table or report
		 * claims it; a resume keeps every row and completes it. */
		snprintf(where, sizeof(where), "run %s", o->run_id);
		crash_say_stopped(o, where, &err, held, 1);
		return 1;
	}
	verdict_table(rows, stdout, TABLE_TEXT);
	verdict_blackbox_table(rows, stdout, TABLE_TEXT);
	verdict_causes(rows, stdout, TABLE_TEXT);
	printf("\n%lld crash images in %.0f s (accelerator %s); checking took %.0f s in %d checker guest%s at once: "
	       "%.2f images/s, each with mount, verification and fsck", images, seconds, o->accel,
	       check_s, o->checkers, o->checkers > 1 ? "s" : "", check_s > 0 ? (images - twins) / check_s : 0.0);
	if (twins)
		printf(" (%lld more were identical to one checked and share its verdict)", twins);
	printf("\nresults: %s/crash\n", o->run_dir);
	report_and_say(o->run_dir);
	return failures || unexpected ? 1 : 0;
}
