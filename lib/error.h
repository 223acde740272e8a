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

struct run_error {
	int code;			/* an errno value (ENOSPC, EDQUOT...); 0: no error */
	char context[PATH_MAX + 256];	/* one line: a path and what happened to it */
};

/* Set e to code (not 0) and the line printf makes of fmt; a second error
 * replaces the first. */
void run_error_set(struct run_error *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* No error: code 0 and no line. */
void run_error_clear(struct run_error *e);

#endif
