/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run directories hold a run's results, its crash images and, through the
 * guests' scratch directories, their sockets: only the user running the
 * harness may reach them, and the harness writes only into directories
 * that user owns.
 */
#ifndef HARNESS_RUNDIR_H
#define HARNESS_RUNDIR_H

#include <limits.h>
#include <stddef.h>

/*
 * Make dir, and any missing parents with the default mode; dir itself is
 * 0700. An existing dir must be a directory (not a symlink) owned by the
 * effective user, and is tightened to 0700. No shell is involved. Returns
 * 0, or -1 with one line for the user in why.
 */
int run_dir_make(const char *dir, char *why, size_t len);

/*
 * A run's directory: "RESULTS/RUN_ID", or RESULTS alone when run_id is
 * NULL (a run directory given as it is). It is at most RUN_DIR_MAX long,
 * which leaves room in PATH_MAX for every path a run makes under it
 * (crash/<scenario>__<fs>/ and the names in it, a user's program), so
 * that those never need checking. 0, or -1 with one line in why.
 */
#define RUN_DIR_MAX (PATH_MAX - 1024)
int run_dir_name(char *out, size_t size, const char *results, const char *run_id, char *why, size_t len);

/*
 * Remove dir and all it holds, as rm -rf would, without a shell: a symbolic
 * link is removed as a link, never followed, and the walk stays on dir's
 * file system. A dir that is not there is already removed. 0, or -1 with
 * errno from the first removal that failed (the rest is still tried).
 */
int run_dir_remove(const char *dir);

#endif
