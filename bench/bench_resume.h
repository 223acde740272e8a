/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bench reads back from a run on disk: on --resume its run.json, which
 * must describe the same matrix; and after every guest the finished units'
 * unit.json documents, from which every cell document is rebuilt. A resume
 * reads them as an interruption left them, so nothing in them is trusted:
 * a result without safe names is skipped with a line.
 */
#ifndef HARNESS_BENCH_RESUME_H
#define HARNESS_BENCH_RESUME_H

#include <jansson.h>

/* 1 when the run.json old has the matrix of now: filesystems, modes, jobs, reps, kernels. */
int bench_same_matrix(const json_t *old, const json_t *now);

/*
 * Add the results of one unit document to cells, an object of cell
 * documents keyed "<kernel>__<fs>__<mode>__<job>"; path names the unit in
 * the line said for a result skipped.
 */
void bench_cells_add_unit(json_t *cells, const json_t *unit, const char *path);

/*
 * Rebuild run_dir/cells/ from run_dir/units/<unit>/unit.json. 0, or -1
 * with errno set and one line for the user in why (nothing printed).
 */
int bench_cells_write(const char *run_dir, char *why, size_t len);

#endif
