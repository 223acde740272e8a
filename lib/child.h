/* SPDX-License-Identifier: GPL-2.0 */
/* A program as a child: no shell, and killed with its parent. */
#ifndef HARNESS_CHILD_H
#define HARNESS_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Start argv[0] (looked up in $PATH when it has no /) with argv, without
 * a shell (no name is quoted into a command line), and killed with us: a
 * bench killed with -9 must leave no unit running that a resume would run
 * again beside it. quiet: its stdout goes to /dev/null. The pid, or -1.
 */
pid_t child_start(char *const argv[], int quiet);

/*
 * Run a child to its end. err: its stderr is kept there (malloc'd, up to
 * 64 KiB) for the caller to pass on, or not. The exit status, or -1.
 */
int child_run(char *const argv[], int quiet, char **err);

/*
 * Run a child to its end, its stderr to /dev/null, and keep what it prints
 * in buf (cut to size - 1 bytes, NUL-terminated). The exit status, or -1.
 */
int child_output(char *const argv[], char *buf, size_t size);

/* The exit status of a wait() status, -1 for a signal. */
int child_exit_status(int status);

#endif
