// SPDX-License-Identifier: GPL-2.0
/*
 * A bench run's directory and its plan: run.json, the job files as they
 * were when planned, and plan.txt, one complete `pmem-harness unit`
 * command per unit not done yet, for any scheduler to run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_resume.h"
#include "../lib/diskfull.h"
#include "../lib/jsonio.h"
#include "../lib/rundir.h"
#include "../lib/shell_word.h"
#include "../lib/textfile.h"

void bench_plan_line(const struct bench *b, const char *kernel, const char *fs, int rep, FILE *f)
{
	char r[16];

	snprintf(r, sizeof(r), "%d", rep);
	unit_command(f, b->harness, b->run_dir, kernel, fs, r);
}

void bench_say_disk_full(const struct bench *b, const char *where, int resumable)
{
	char pattern[PATH_MAX];
	size_t kept = 0;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/units/*/unit.json", b->run_dir);
	if (glob(pattern, 0, NULL, &g) == 0) {
		kept = g.gl_pathc;
		globfree(&g);
	}
	if (!resumable) {
		fprintf(stderr, "bench: %s stopped: %s; free space, then run bench again\n", where, b->disk_full.context);
		return;
	}
	fprintf(stderr, "bench: %s stopped: %s; the %zu guest%s done before %s kept (%s/units); free space, then finish the run with --resume %s (make bench RESUME=%s)\n",
		where, b->disk_full.context, kept, kept == 1 ? "" : "s", kept == 1 ? "is" : "are", b->run_dir,
		b->run_id, b->run_id);
}

/* Each job file into jobs/, once: a resumed run keeps what it planned with. */
static int copy_jobs(const struct bench *b, char *why, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX], name[128];
	int i;

	snprintf(dir, sizeof(dir), "%s/jobs", b->run_dir);
	if (run_dir_make(dir, why, len) < 0)
		return -1;
	for (i = 0; i < b->jobs.n; i++) {
		char *text;
		FILE *f;
		int bad;

		snprintf(path, sizeof(path), "%s/%s.fio", dir, bench_job_name(b->jobs.v[i], name, sizeof(name)));
		if (!access(path, R_OK))
			continue;
		text = read_text_file(b->jobs.v[i]);
		if (!text) {
			snprintf(why, len, "cannot read job file %s: %s", b->jobs.v[i], strerror(errno));
			return -1;
		}
		f = fopen(path, "w");
		bad = !f || fputs(text, f) < 0;
		bad |= f && fclose(f);
		free(text);
		if (bad) {
			snprintf(why, len, "cannot write %s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* plan.txt, written whole and then renamed: a reader never sees half a plan. */
static int write_plan(const struct bench *b, int *planned, char *why, size_t len)
{
	char path[PATH_MAX], dir[PATH_MAX];
	struct text_out out;
	int rep, i, k;

	snprintf(path, sizeof(path), "%s/plan.txt", b->run_dir);
	if (text_file_begin(&out, path, why, len) < 0)
		return -1;
	*planned = 0;
	bench_for_each_unit(b, rep, i, k) {
		bench_unit_dir(b, b->kernels.v[i], b->fss.v[k], rep, dir, sizeof(dir));
		if (bench_unit_done(dir))
			continue;
		bench_plan_line(b, b->kernels.v[i], b->fss.v[k], rep, out.f);
		++*planned;
	}
	return text_file_commit(&out, why, len);
}

int bench_plan(struct bench *b, int *exit_status)
{
	char path[PATH_MAX], why[WHY_MAX];
	int planned;
	json_t *doc;

	*exit_status = 2;
	snprintf(path, sizeof(path), "%s/run.json", b->run_dir);
	if (b->resume) {
		json_t *now;

		/* Only a run that is there is checked: nothing is made for a typo. */
		if (!access(b->run_dir, F_OK) && run_dir_make(b->run_dir, why, sizeof(why)) < 0) {
			fprintf(stderr, "bench: %s\n", why);
			return -1;
		}
		doc = json_load_file(path, 0, NULL);
		if (!doc) {
			fprintf(stderr, "bench: nothing to resume at %s\n", b->run_dir);
			return -1;
		}
		now = bench_run_json(b);
		/* Resuming with another matrix would mix incomparable cells. */
		if (!bench_same_matrix(doc, now)) {
			fprintf(stderr, "bench: run %s was made with another matrix or other kernels; start a new run instead\n",
				b->run_id);
			json_decref(doc);
			json_decref(now);
			return -1;
		}
		json_decref(now);
	} else {
		if (!access(path, F_OK)) {
			fprintf(stderr, "bench: run %s exists: use --resume %s to finish it, or another --run-id\n",
				b->run_id, b->run_id);
			return -1;
		}
		snprintf(path, sizeof(path), "%s/units", b->run_dir);
		if (run_dir_make(b->run_dir, why, sizeof(why)) < 0 || run_dir_make(path, why, sizeof(why)) < 0) {
			fprintf(stderr, "bench: %s\n", why);
			return -1;
		}
		doc = bench_run_json(b);
	}
	snprintf(path, sizeof(path), "%s/run.json", b->run_dir);
	if (json_write_atomic_why(path, doc, why, sizeof(why)) < 0 ||
	    copy_jobs(b, why, sizeof(why)) < 0 || write_plan(b, &planned, why, sizeof(why)) < 0) {
		json_decref(doc);
		*exit_status = 1;
		if (!disk_full_errno(errno)) {
			fprintf(stderr, "bench: %s\n", why);
			return -1;
		}
		disk_full_writing(&b->disk_full, b->run_dir, path, errno);
		snprintf(why, sizeof(why), "run %s", b->run_id);
		bench_say_disk_full(b, why, b->resume);
		return -1;
	}
	json_decref(doc);
	return planned;
}
