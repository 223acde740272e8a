// SPDX-License-Identifier: GPL-2.0
/*
 * pmem-agent: the guest end of the harness's control channel.
 *
 * The harness gives every guest two virtio-serial ports: "pmem.ctl" carries
 * short protocol lines (guest: "hello", "exit", "ack"; host: the job script
 * and ack confirmations), "pmem.out" carries the job's stdout and stderr.
 * Without udev there are no /dev/virtio-ports links, so ports are found by
 * name in sysfs.
 *
 *   pmem-agent port NAME        print the /dev node of port NAME
 *   pmem-agent hello FILE       announce the guest, receive its input files
 *                               into /tmp/in/ and the job into FILE
 *   pmem-agent exit STATUS      report the job's exit status
 *   pmem-agent ask LINE         send LINE, print the host's one-line answer
 *   pmem-agent print PROG [ARG...]  run PROG, each line of its stdout to the
 *                               host (proto/print_line.h) and to the output port
 *   pmem-agent model-start      start the ADR model's plugin (proto/adr_marker.h)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../proto/adr_marker.h"
#include "../proto/job_files.h"
#include "../proto/print_line.h"
#include "channel.h"

static int cmd_port(int argc, char **argv)
{
	char path[PATH_MAX];

	if (argc != 1) {
		fprintf(stderr, "usage: pmem-agent port NAME\n");
		return 2;
	}
	if (channel_find_port(argv[0], path, sizeof(path)) < 0) {
		fprintf(stderr, "pmem-agent: no virtio-serial port named %s\n", argv[0]);
		return 1;
	}
	puts(path);
	return 0;
}

/* One input file (proto/job_files.h) into JOB_FILE_DIR; 0 or -1 (said). */
static int receive_file(int fd, const char *line)
{
	char name[JOB_FILE_NAME_MAX], path[PATH_MAX];
	unsigned int mode;
	size_t len;
	int n = 0, out;

	if (sscanf(line, "file %63s %o %zu%n", name, &mode, &len, &n) != 3 || line[n] || !job_file_name_ok(name) ||
	    !job_file_mode_ok(mode) || len > JOB_FILE_MAX) {
		fprintf(stderr, "pmem-agent: refused '%.80s' (want file <name> 644|755 <len>)\n", line);
		return -1;
	}
	if (mkdir(JOB_FILE_DIR, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "pmem-agent: mkdir %s: %s\n", JOB_FILE_DIR, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", JOB_FILE_DIR, name);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (out < 0) {
		fprintf(stderr, "pmem-agent: open %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (channel_copy(fd, out, len) < 0 || fchmod(out, mode) < 0) {
		close(out);
		return -1;
	}
	return close(out);
}

/* Announce ourselves, then receive the input files and the job script (proto/job_files.h). */
static int cmd_hello(int argc, char **argv)
{
	struct utsname u;
	char line[256];
	long len;
	int fd, out, ret = 1;

	if (argc != 1) {
		fprintf(stderr, "usage: pmem-agent hello FILE\n");
		return 2;
	}
	fd = channel_open(CHANNEL_CTL);
	if (fd < 0)
		return 1;
	uname(&u);
	if (channel_printf(fd, "hello %s\n", u.release) < 0 || channel_read_line(fd, line, sizeof(line)) < 0)
		goto out;
	while (!strncmp(line, "file ", 5))
		if (receive_file(fd, line) < 0 || channel_read_line(fd, line, sizeof(line)) < 0)
			goto out;
	if (sscanf(line, "script %ld", &len) != 1 || len < 0) {
		fprintf(stderr, "pmem-agent: unexpected reply '%s'\n", line);
		goto out;
	}
	out = open(argv[0], O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (out < 0) {
		fprintf(stderr, "pmem-agent: open %s: %s\n", argv[0], strerror(errno));
		goto out;
	}
	ret = channel_copy(fd, out, len) < 0 || close(out) < 0;
out:
	close(fd);
	return ret;
}

static int cmd_exit(int argc, char **argv)
{
	int fd, ret;

	if (argc != 1) {
		fprintf(stderr, "usage: pmem-agent exit STATUS\n");
		return 2;
	}
	fd = channel_open(CHANNEL_CTL);
	if (fd < 0)
		return 1;
	ret = channel_printf(fd, "exit %d\n", atoi(argv[0])) < 0;
	close(fd);
	return ret;
}

/* Start the ADR model (proto/adr_marker.h); without it, nothing happens. */
static int cmd_model_start(int argc, char **argv)
{
	(void)argv;
	if (argc != 0) {
		fprintf(stderr, "usage: pmem-agent model-start\n");
		return 2;
	}
	adr_start_marker();
	return 0;
}

/* Send one line on the control port and print the host's one-line answer. */
static int cmd_ask(int argc, char **argv)
{
	char line[512];
	int fd, ret;

	if (argc != 1) {
		fprintf(stderr, "usage: pmem-agent ask LINE\n");
		return 2;
	}
	fd = channel_open(CHANNEL_CTL);
	if (fd < 0)
		return 1;
	ret = channel_printf(fd, "%s\n", argv[0]) < 0 || channel_read_line(fd, line, sizeof(line)) < 0;
	if (!ret)
		puts(line);
	close(fd);
	return ret;
}

/* One line the program printed, to the host as proto/print_line.h says and to guest.log. */
static int send_printed(int ctl, const char *text, size_t len)
{
	char line[sizeof(PRINT_LINE_PREFIX) + PRINT_TEXT_MAX + 1];
	size_t n = strlen(PRINT_LINE_PREFIX);

	memcpy(line, PRINT_LINE_PREFIX, n);
	for (size_t i = 0; i < len && i < PRINT_TEXT_MAX; i++)
		line[n++] = text[i] >= 0x20 && text[i] < 0x7f ? text[i] : '?';
	line[n++] = '\n';
	fwrite(line + strlen(PRINT_LINE_PREFIX), 1, n - strlen(PRINT_LINE_PREFIX), stdout);
	fflush(stdout);
	return channel_printf(ctl, "%.*s", (int)n, line);
}

/*
 * Run a program whose stdout is a pty, as on a terminal, so that stdio
 * hands each line to the kernel when it is printed rather than when a
 * buffer fills; each line goes to the host as soon as it is read.
 */
static int cmd_print(int argc, char **argv)
{
	char buf[4096], pending[PRINT_TEXT_MAX];
	size_t plen = 0;
	int ctl, master, status;
	struct termios tio;
	pid_t pid;
	ssize_t n;

	if (argc < 1) {
		fprintf(stderr, "usage: pmem-agent print PROG [ARG...]\n");
		return 2;
	}
	ctl = channel_open(CHANNEL_CTL);
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (ctl < 0 || master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 || !ptsname(master)) {
		fprintf(stderr, "pmem-agent: no pty for the program's output: %s\n", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int slave = open(ptsname(master), O_RDWR | O_NOCTTY);

		/* Lines as the program wrote them: no "\r\n" for "\n". */
		if (slave < 0 || tcgetattr(slave, &tio) < 0)
			_exit(127);
		tio.c_oflag &= ~OPOST;
		if (tcsetattr(slave, TCSANOW, &tio) < 0 || dup2(slave, 1) < 0)
			_exit(127);
		close(slave);
		close(master);
		close(ctl);
		execvp(argv[0], argv);
		fprintf(stderr, "pmem-agent: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	/* EIO once the program and everything it started closed the pty. */
	while ((n = read(master, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				send_printed(ctl, pending, plen);
				plen = 0;
			} else if (plen < sizeof(pending)) {
				pending[plen++] = buf[i];
			}
		}
	}
	if (plen)
		send_printed(ctl, pending, plen);
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "port", cmd_port },
	{ "ask", cmd_ask },
	{ "hello", cmd_hello },
	{ "exit", cmd_exit },
	{ "print", cmd_print },
	{ "model-start", cmd_model_start },
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "usage: pmem-agent port|hello|exit|ask|print|model-start ...\n");
		return 2;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 2, argv + 2);
	fprintf(stderr, "pmem-agent: unknown command '%s' (port, hello, exit, ask, print, model-start)\n", argv[1]);
	return 2;
}
