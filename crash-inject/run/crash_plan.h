/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A crashtest planned into units (pmem-harness plan crashtest): one unit per
 * row of the scenario table and filesystem, the natural grain, one writer
 * guest and the checking of its images. Each is a line of RUN_DIR/plan.txt,
 *
 *   pmem-harness unit RUN_DIR SCENARIO FS
 *
 * that writes only RUN_DIR/crash/<scenario>__<fs>/, and row.json there last:
 * the unit is done once that is on disk, and a line retried after it is
 * skipped. run.json holds the options (as crashtest records them) and the
 * plan; pmem-harness collect RUN_DIR builds crash/summary.json from the rows,
 * as the in-process crashtest would have written it.
 */
#ifndef HARNESS_CRASH_PLAN_H
#define HARNESS_CRASH_PLAN_H

#include <jansson.h>
#include <stdio.h>

#include "crash.h"

/* crash_plan.c */
/* RUN_DIR/crash/<scenario>__<fs>: a unit's directory. */
void crash_unit_dir(const char *run_dir, const char *scenario, const char *fs, char *out, size_t len);
/* Whether the unit in dir left its row document: it is done. */
int crash_unit_done(const char *dir);
/* The unit's command line, for sh. */
void crash_plan_line(FILE *f, const char *build, const char *run_dir, const char *scenario, const char *fs);
/*
 * Add the plan to run.json (units: [{scenario, fs}] in run order; checkers:
 * per unit, 0 for the default) and write plan.txt with the units not done
 * yet, *planned of them: 0, or -1 with one line in why.
 */
int crash_plan_write(const struct crash_options *o, json_t *units, int checkers, int *planned, char *why,
		     size_t len);
/* Copy plan.txt to f. */
void crash_plan_print(const char *path, FILE *f);
/*
 * The unit's row document, written atomically: the row, the checker guests
 * it booted (as summary.json's "checker" counts them), and its seconds.
 * 0, or -1 with one line in why (errno kept).
 */
int crash_row_write(const char *dir, json_t *row, int checkers, int guests, double boot_s, double seconds,
		    char *why, size_t len);

/* crash_collect.c */
/* collect for a crashtest run (run: its run.json): the command's exit status. */
int crash_collect(const char *run_dir, json_t *run);

/* cmd-crashtest.c */
int crashtest_plan(int argc, char **argv);
/* One planned unit (run: run_dir's run.json): the command's exit status. */
int crashtest_unit(const char *run_dir, json_t *run, const char *scenario, const char *fs);

#endif
