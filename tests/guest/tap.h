/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP 13 output in the shape of the kernel's kselftest.h: a plan, "ok N",
 * "not ok N", "# SKIP", diagnostics on "# " lines, and each test in its own
 * process with a timeout so that a crash or hang fails one test, not all.
 */
#ifndef PMEM_TAP_H
#define PMEM_TAP_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define TAP_PASS 0
#define TAP_FAIL 1
#define TAP_SKIP 4

static int tap_count, tap_failed;

static inline void tap_plan(int n)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%d\n", n);
}

static inline void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline void tap_result(int status, const char *name, const char *skip_reason)
{
	tap_count++;
	if (status == TAP_SKIP)
		printf("ok %d %s # SKIP %s\n", tap_count, name, skip_reason ? skip_reason : "");
	else if (status == TAP_PASS)
		printf("ok %d %s\n", tap_count, name);
	else {
		printf("not ok %d %s\n", tap_count, name);
		tap_failed++;
	}
}

/* Run fn(arg) in a child with a timeout; its exit status is the result. */
static inline void tap_run(const char *name, int (*fn)(void *), void *arg, unsigned int timeout)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		alarm(timeout);
		exit(fn(arg));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		tap_diag("%s: cannot run the test process", name);
		tap_result(TAP_FAIL, name, NULL);
		return;
	}
	if (WIFSIGNALED(status)) {
		tap_diag("%s: killed by signal %d%s", name, WTERMSIG(status),
			 WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
		tap_result(TAP_FAIL, name, NULL);
		return;
	}
	tap_result(WEXITSTATUS(status) == TAP_PASS ? TAP_PASS : TAP_FAIL, name, NULL);
}

static inline int tap_exit(void)
{
	return tap_failed ? 1 : 0;
}

#endif
