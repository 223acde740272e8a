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
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../proto/job_files.h"
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

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "port", cmd_port },
	{ "ask", cmd_ask },
	{ "hello", cmd_hello },
	{ "exit", cmd_exit },
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "usage: pmem-agent port|hello|exit|ask ...\n");
		return 2;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 2, argv + 2);
	fprintf(stderr, "pmem-agent: unknown command '%s' (port, hello, exit, ask)\n", argv[1]);
	return 2;
}
