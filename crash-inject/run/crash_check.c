// SPDX-License-Identifier: GPL-2.0
/*
 * The checker guests on a scenario's images. With the run's pool they take
 * each image while the writer still runs: under TCG the writer keeps one
 * core busy, and the checkers, parked until the writer ends, would leave
 * the other idle. An eADR image is ready when it is copied; an ADR point's
 * images once its ack line has come (the point comes first, and the
 * checker needs to know how many records were acknowledged). A black box
 * (whose fence points are thinned as the run goes on) and a program row
 * with its own checker are checked after their writer, as a whole.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

#include "crash.h"

/* The checker asks for image i: its file, or its crash point's lines. */
static int write_checked(void *ctx, size_t i, const char *dst)
{
	struct crash_scenario_state *st = ctx;

	return crash_image_write(st, &st->images[i], dst, 0);
}

/* The set as the writer has it now: the arrays grow as acks come. */
static void refresh(struct crash_scenario_state *st)
{
	st->check.acks = st->acks;
	st->check.nacks = st->nacks;
	st->check.items = st->checks;
	st->check.nitems = st->nimages;
	st->check.printed = st->blackbox ? st->printed : NULL;
}

void crash_check_begin(struct crash_scenario_state *st, const char *fs)
{
	st->check = (struct check_set){ .fs = fs, .write_image = write_checked, .ctx = st };
	st->checking = st->pool && !st->row_checker && !st->blackbox;
	if (!st->checking)
		return;
	refresh(st);
	checker_pool_begin(st->pool, &st->check);
}

int crash_check_fds(struct crash_scenario_state *st, struct pollfd *fds, int max)
{
	return st->checking ? checker_pool_fds(st->pool, fds, max) : 0;
}

void crash_check_step(struct crash_scenario_state *st, const struct pollfd *fds, int n)
{
	if (!st->checking || st->disk_full.code || st->log_error.code)
		return;
	st->check.nready = crash_images_ready(st, 0);
	refresh(st);
	checker_pool_step(st->pool, fds, n);
}

void crash_check_abandon(struct crash_scenario_state *st)
{
	if (st->checking)
		checker_pool_end(st->pool, 0);
	st->checking = 0;
}

int crash_check_rest(struct crash_scenario_state *st, double *busy, double *tail)
{
	double t0 = now_s();
	off_t free_after;

	st->check.nready = crash_images_ready(st, 1);
	refresh(st);
	if (st->checking) {
		*busy = checker_pool_end(st->pool, 1);
	} else {
		if (st->row_checker)
			checker_run(st->row_checker, &st->check);
		else if (st->pool)
			checker_pool_check(st->pool, &st->check);
		*busy = now_s() - t0;
	}
	st->checking = 0;
	*tail = now_s() - t0;
	/* A disk that filled up under the checkers failed them (a write into
	 * one's NVDIMM, or its QEMU's SIGBUS on the mapped file), not the
	 * images: the scenario is not judged, and a resume runs it again. */
	free_after = crash_free_bytes(st->dir);
	if (st->check.disk_full.code)
		run_error_set(&st->disk_full, st->check.disk_full.code, "the disk under %s is full: %s", st->dir,
			      st->check.disk_full.context);
	else if (free_after >= 0 && free_after < DISK_RESERVE)
		run_error_set(&st->disk_full, ENOSPC,
			      "the disk under %s is full: %lld MiB free after the checkers ran, less than the %lld MiB kept for the results",
			      st->dir, (long long)(free_after >> 20), (long long)(DISK_RESERVE >> 20));
	return st->disk_full.code ? -1 : 0;
}
