// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-harness bench: the benchmark matrix on this host. It is `plan`,
 * then every unit not done (up to --guests at once), then `collect`
 * (bench.h says what each writes). Units run one after another unless
 * --guests says otherwise; guests run at once share cores, and each unit
 * records how many guests it shared its host with, which the summary says.
 *
 * The cell documents are rebuilt after each unit, so an interrupted run
 * leaves consistent cells, and --resume runs only the units not done. A full
 * results disk stops the run in one line: every unit after it would fail
 * the same way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../bench/bench.h"
#include "../bench/bench_resume.h"
#include "builtin.h"
#include "../lib/child.h"
#include "../lib/diskfull.h"

struct unit_ref {
	const char *kernel, *fs;
	int rep;
	pid_t pid;
	double t0;
};

static void fmt_duration(double s, char *buf, size_t size)
{
	if (s < 0 || isnan(s))
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%dm%02ds", (int)s / 60, (int)s % 60);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every unit of the matrix, repetition by repetition, kernels interleaved. */
static int list_units(const struct bench *b, struct unit_ref *u)
{
	int rep, i, k, n = 0;

	bench_for_each_unit(b, rep, i, k)
		u[n++] = (struct unit_ref){ b->kernels.v[i], b->fss.v[k], rep, 0, 0 };
	return n;
}

/* Cells after each unit; 0, or -1 when the disk is full (b->disk_full says). */
static int rebuild_cells(struct bench *b)
{
	char why[WHY_MAX];

	if (!b->disk_full.code && bench_cells_write(b->run_dir, why, sizeof(why)) < 0) {
		if (disk_full_errno(errno))
			disk_full_writing(&b->disk_full, b->run_dir, "the cell documents", errno);
		else
			fprintf(stderr, "bench: %s\n", why);
	}
	return b->disk_full.code ? -1 : 0;
}

static void say_progress(int done, int n, const struct unit_ref *u, double t0, double unit_time, int guests)
{
	char el[32], eta[32];

	fmt_duration(now_s() - t0, el, sizeof(el));
	fmt_duration(unit_time * (n - done) / guests, eta, sizeof(eta));
	fprintf(stderr, "bench: [%d/%d] %s %s rep %d: %.0f s; elapsed %s, ETA %s\n",
		done, n, u->kernel, u->fs, u->rep, now_s() - u->t0, el, eta);
}

/*
 * Up to b->guests units at once, each a `pmem-harness unit` child killed
 * with us. The number of failed units; -1 when the disk filled up.
 */
static int run_units(struct bench *b, struct unit_ref *u, int n, double t0)
{
	char dir[PATH_MAX], rep[16], why[200];
	int next = 0, running = 0, done = 0, failed = 0, i, status;
	double unit_time = 0;
	pid_t pid;

	for (;;) {
		/* Start units while there is room and no full disk. */
		while (running < b->guests && next < n && !b->disk_full.code) {
			struct unit_ref *v = &u[next++];

			bench_unit_dir(b, v->kernel, v->fs, v->rep, dir, sizeof(dir));
			if (bench_unit_done(dir)) {
				fprintf(stderr, "bench: [%d/%d] %s %s rep %d: done before, skipped\n",
					++done, n, v->kernel, v->fs, v->rep);
				continue;
			}
			v->t0 = now_s();
			if (b->guests == 1) {
				/* One at a time: the unit runs in this process. */
				if (bench_run_unit(b, v->kernel, v->fs, v->rep) < 0)
					failed++;
				unit_time = unit_time ? 0.7 * unit_time + 0.3 * (now_s() - v->t0) : now_s() - v->t0;
				done++;
				if (rebuild_cells(b) < 0) {
					snprintf(why, sizeof(why), "%s/%s rep %d", v->kernel, v->fs, v->rep);
					bench_say_disk_full(b, why, 1);
					return -1;
				}
				say_progress(done, n, v, t0, unit_time, 1);
				continue;
			}
			snprintf(rep, sizeof(rep), "%d", v->rep);
			{
				char *argv[] = { b->harness, "unit", b->run_dir, (char *)v->kernel, (char *)v->fs, rep, NULL };

				v->pid = child_start(argv, 0);
			}
			if (v->pid < 0) {
				fprintf(stderr, "bench: cannot start a unit: %s\n", strerror(errno));
				failed++;
				done++;
				continue;
			}
			running++;
		}
		if (!running)
			break;
		pid = wait(&status);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < n && u[i].pid != pid; i++)
			;
		if (i == n)
			continue;
		running--;
		done++;
		u[i].pid = 0;
		unit_time = unit_time ? 0.7 * unit_time + 0.3 * (now_s() - u[i].t0) : now_s() - u[i].t0;
		if (child_exit_status(status) == UNIT_EXIT_DISK_FULL && !b->disk_full.code)
			run_error_set(&b->disk_full, ENOSPC, "the disk under %s is full (the unit's line above)", b->run_dir);
		else if (child_exit_status(status) != 0)
			failed++;
		if (rebuild_cells(b) < 0)
			continue;	/* the others finish; nothing more starts */
		say_progress(done, n, &u[i], t0, unit_time, b->guests);
	}
	if (b->disk_full.code) {
		bench_say_disk_full(b, "bench", 1);
		return -1;
	}
	return failed;
}

int cmd_bench(int argc, char **argv)
{
	struct unit_ref *units;
	double t0 = now_s();
	struct bench b;
	int n, status, failed;

	if (bench_parse(&b, argc, argv, "bench") < 0)
		return 2;
	if (bench_plan(&b, &status) < 0)
		return status;
	units = calloc((size_t)b.reps * b.kernels.n * b.fss.n, sizeof(*units));
	if (!units)
		return 1;
	n = list_units(&b, units);
	fprintf(stderr, "bench: run %s: %d guests (%d kernels x %d filesystems x %d reps), %d job files%s\n",
		b.run_id, n, b.kernels.n, b.fss.n, b.reps, b.jobs.n,
		b.guests > 1 ? ", several at once (their emulated times are noted as shared)" : "");
	if (b.guests > 1)
		fprintf(stderr, "bench: up to %d guests at once on %ld CPUs\n", b.guests, sysconf(_SC_NPROCESSORS_ONLN));
	failed = run_units(&b, units, n, t0);
	free(units);
	if (failed < 0)
		return 1;
	/* No summary or report on a full disk: they would be written there too. */
	bench_collect(&b, stdout);
	if (failed)
		fprintf(stderr, "bench: %d of %d guests failed; their cells lack those repetitions. "
			"Rerun with --resume %s after fixing the cause.\n", failed, n, b.run_id);
	return failed ? 1 : 0;
}
