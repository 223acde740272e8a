/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmem-harness xfstests, one file per part:
 *   cmd-xfstests.c      the options, run.json and the run's units, in this
 *                       process or as a plan for a scheduler
 *   xfstests_unit.c     one unit, a kernel on a filesystem: its guests and
 *                       its document
 *   xfstests_collect.c  the units' documents merged: xfstests.json,
 *                       summary.md, the comparison with the baseline
 *
 * A unit writes only RUN_DIR/xfstests/<kernel>/<fs>/, and unit.json there
 * last (its results and the guest's environment): it is done once that is
 * on disk, so a planned unit's line retried after it is skipped. run.json
 * holds the run's options and its units ("plan": kernel, fs, tests).
 */
#ifndef HARNESS_XFSTESTS_RUN_H
#define HARNESS_XFSTESTS_RUN_H

#include <jansson.h>
#include <stdio.h>

/* What the run fixed for every unit. */
struct xt_run {
	const char *build, *accel, *root_image;
	int limit, verbose, force_aware;
};

/* xfstests_unit.c */
/* RUN_DIR/xfstests/<kernel>/<fs>: a unit's directory. */
void xt_unit_dir(const char *run_dir, const char *kernel, const char *fs, char *out, size_t len);
/* Whether the unit in dir left its document: it is done. */
int xt_unit_done(const char *dir);
/* The planned unit's command line, for sh. */
void xt_plan_line(FILE *f, const char *build, const char *run_dir, const char *kernel, const char *fs);
/*
 * Run kernel on fs, tests (a JSON array of names) in guests until each has
 * a result, print them, and write the unit's document: 0, or -1 (said).
 * *failed: how many failed.
 */
int xt_unit_run(const struct xt_run *run, const char *run_dir, const char *kernel, const char *fs, json_t *tests,
		int *failed);

/* xfstests_collect.c */
/*
 * Merge the run's unit documents (run: its run.json) into xfstests.json
 * and summary.md, each kernel compared with its baseline. report: print
 * the table and the totals, and name each unit missing with its command.
 * Returns the exit status: 0, 1 on a regression or a unit missing, 2 when
 * the results cannot be written.
 */
int xt_collect(const char *run_dir, json_t *run, int report);

/* cmd-xfstests.c */
int xfstests_plan(int argc, char **argv);
/* One planned unit (run: run_dir's run.json): the command's exit status. */
int xfstests_unit(const char *run_dir, json_t *run, const char *kernel, const char *fs);

#endif
