/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An error that stops a run, kept as fio's td_verror() keeps one per job:
 * the errno value it comes from and one line of context for the user,
 * set where it happens and said once by whoever stops. Nothing else is
 * threaded through the callers in between.
 */
#ifndef HARNESS_ERROR_H
#define HARNESS_ERROR_H

#include <limits.h>

/*
 * A "why": one line for the user, a path and what happened to it, as
 * run_dir_make(), json_write_atomic_why(), text_file_*() and accel_resolve()
 * write it ("cannot write PATH.tmp.PID: STRERROR (disk full?)", "PATH is
 * owned by uid N, not by you (uid M): use a results directory of your
 * own"). The path was made in a PATH_MAX buffer, so it is at most
 * PATH_MAX - 1 bytes; the words around it, strerror() and the numbers
 * included, are well under 256. Run directories are shorter still
 * (RUN_DIR_MAX, lib/rundir.h), but a cache directory or a file a user
 * names is not. A line that is longer all the same (run_dir_name() quotes
 * a --results it refuses, of any length) is cut by snprintf: it is only
 * printed or recorded, never parsed or used as a path.
 */
#define WHY_MAX (PATH_MAX + 256)

struct run_error {
	int code;			/* an errno value (ENOSPC, EDQUOT...); 0: no error */
	char context[WHY_MAX];		/* one line: a path and what happened to it */
};

/* Set e to code (not 0) and the line printf makes of fmt; a second error
 * replaces the first. */
void run_error_set(struct run_error *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* No error: code 0 and no line. */
void run_error_clear(struct run_error *e);

#endif
