/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finishing an interrupted crashtest (--resume): a scenario whose row is in
 * the run's summary was judged in full and is kept as it is; one without a
 * row was cut off, and what it left is removed and the scenario run again.
 * The summary is written atomically after every scenario, so a row found is
 * a whole row. A run may only be finished with the options it started with.
 */
#ifndef HARNESS_CRASH_RESUME_H
#define HARNESS_CRASH_RESUME_H

#include <jansson.h>

struct crash_resume {
	json_t *rows;		/* the rows of the summary found, or an empty array */
	int complete;		/* the run had finished */
};

/*
 * Open run_dir's interrupted run: its run.json must hold "options" equal to
 * options. 0, or -1 with one line saying what to do.
 */
int crash_resume_open(const char *run_dir, const char *run_id, const json_t *options, struct crash_resume *r);

/* The finished row of scenario on fs, borrowed, or NULL. */
json_t *crash_resume_row(const struct crash_resume *r, const char *scenario, const char *fs);

/* Remove what a cut-off attempt left in a scenario's directory. 0 or -1. */
int crash_resume_clear(const char *scenario_dir);

void crash_resume_free(struct crash_resume *r);

#endif
