// SPDX-License-Identifier: GPL-2.0
/*
 * One scenario on one filesystem: the writer guest takes the crash images
 * (crash_writer.c), the checker guests check them, as they come and after
 * the writer (crash_check.c), and the host judges each against the ack log
 * (crash_judge.c). Its files go to crash/<scenario>__<fs>/: acks.log,
 * images/ and one JSON per image.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "crash.h"
#include "../../lib/diskfull.h"
#include "../../lib/rundir.h"

/* crash/<scenario>__<fs>/ and its images/: 0, or -1 (said, or st->disk_full). */
static int scenario_dir(struct crash_scenario_state *st, const struct scenario *sc, const char *fs)
{
	const char *run_dir = st->opt->run_dir;
	char path[PATH_MAX], why[WHY_MAX];

	snprintf(st->dir, sizeof(st->dir), "%s/crash/%s__%s", run_dir, sc->name, fs);
	snprintf(path, sizeof(path), "%s/images", st->dir);
	if (run_dir_make(st->dir, why, sizeof(why)) < 0 || run_dir_make(path, why, sizeof(why)) < 0) {
		if (disk_full_errno(errno))
			run_error_set(&st->disk_full, errno, "the disk under %s is full: %s", run_dir, why);
		else
			fprintf(stderr, "crashtest: %s\n", why);
		return -1;
	}
	return 0;
}

json_t *crash_scenario_run(struct crash_scenario_state *st, const struct scenario *sc, const char *fs)
{
	const char *kernel = sc->kernel[0] ? sc->kernel : st->opt->kernel;
	char failure[700] = "";
	struct crash_row_facts f = { .t0 = now_s(), .failure = failure };
	struct vm_result r;
	const char *tp;
	json_t *row;

	crash_writer_begin(st, sc->platform);
	if (scenario_dir(st, sc, fs) < 0)
		return NULL;
	crash_check_begin(st, fs);
	if (crash_writer_run(st, sc, fs, kernel, &r) < 0) {
		crash_check_abandon(st);
		return NULL;
	}
	f.writer_seconds = now_s() - f.t0;
	if (st->log_error.code)
		fprintf(stderr, "crashtest: %s/%s: %s; stopped the writer at %zu acks, and its images are not judged\n",
			sc->name, fs, st->log_error.context, st->nacks);
	if (st->disk_full.code || st->log_error.code) {
		crash_check_abandon(st);
		crash_unjudged(st);
		return NULL;
	}

	/* Every point's images, those whose ack line never came among them. */
	crash_images_ready(st, 1);
	if (st->protocol_error[0])
		fprintf(stderr, "crashtest: %s/%s: the guest broke the ack protocol, stopped at %zu acks: %s; the %zu images taken before are judged\n",
			sc->name, fs, st->nacks, st->protocol_error, st->nimages);
	else if (crash_writer_failed(st, &r, failure, sizeof(failure)))
		fprintf(stderr, "crashtest: %s/%s: %s; judging the %zu images taken before, as crash images of a run that failed\n",
			sc->name, fs, failure, st->nimages);
	else if (st->blackbox && is_adr(st) && !st->user_fences_offered)
		fprintf(stderr, "crashtest: %s/%s: your program never fenced a line it wrote back (no clwb, clflushopt or NT store followed by sfence): under ADR it has no crash points but the one after it exited\n",
			sc->name, fs);
	f.status = r.status;
	if (crash_check_rest(st, &f.check_seconds, &f.check_tail_seconds) < 0) {
		crash_unjudged(st);
		return NULL;
	}
	f.twins = st->twins;
	row = crash_judge(st, sc, fs, kernel, &f);
	/* A black box whose recovery fails without any crash says so, once. */
	tp = json_string_value(json_object_get(json_object_get(row, "blackbox"), "target_problem"));
	if (tp)
		fprintf(stderr, "crashtest: %s/%s: RECOVER fails on the state after a clean exit, so no failure counts as a crash bug: fix the target or its RECOVER first (%s)\n",
			sc->name, fs, tp);
	return row;
}
