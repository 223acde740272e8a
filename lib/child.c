// SPDX-License-Identifier: GPL-2.0
/* A program as a child: no shell, and killed with its parent. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"

/* What a child says on stderr, up to 64 KiB; the rest is read and dropped. */
static char *read_all(int fd)
{
	size_t len = 0, cap = 64 << 10;
	char *buf = malloc(cap + 1), sink[4096];
	ssize_t n;

	for (;;) {
		n = read(fd, len < cap ? buf + len : sink, len < cap ? cap - len : sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < cap)
			len += n;
	}
	buf[len] = '\0';
	return buf;
}

static pid_t start(char *const argv[], int quiet, int out_fd, int err_fd)
{
	pid_t parent = getpid(), pid = fork();

	if (pid != 0)
		return pid;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	if (quiet && dup2(open("/dev/null", O_WRONLY | O_CLOEXEC), 1) < 0)
		_exit(127);
	if (out_fd >= 0 && dup2(out_fd, 1) < 0)
		_exit(127);
	if (err_fd >= 0 && dup2(err_fd, 2) < 0)
		_exit(127);
	execvp(argv[0], argv);
	fprintf(stderr, "pmem-harness: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

pid_t child_start(char *const argv[], int quiet)
{
	return start(argv, quiet, -1, -1);
}

int child_exit_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int child_run(char *const argv[], int quiet, char **err)
{
	int status, pfd[2] = { -1, -1 };
	pid_t pid;

	if (err && pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	pid = start(argv, quiet, -1, pfd[1]);
	if (pid < 0) {
		if (err) {
			close(pfd[0]);
			close(pfd[1]);
		}
		return -1;
	}
	if (err) {
		close(pfd[1]);
		*err = read_all(pfd[0]);
		close(pfd[0]);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return child_exit_status(status);
}

int child_output(char *const argv[], char *buf, size_t size)
{
	int status, null = open("/dev/null", O_WRONLY | O_CLOEXEC), pfd[2];
	char *out;
	pid_t pid;

	if (null < 0)
		return -1;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		close(null);
		return -1;
	}
	pid = start(argv, 0, pfd[1], null);
	close(pfd[1]);
	close(null);
	if (pid < 0) {
		close(pfd[0]);
		return -1;
	}
	out = read_all(pfd[0]);
	close(pfd[0]);
	snprintf(buf, size, "%s", out);
	free(out);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return child_exit_status(status);
}
