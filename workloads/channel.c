// SPDX-License-Identifier: GPL-2.0
/* Guest side of the harness channel: see channel.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "channel.h"

int channel_find_port(const char *name, char *path, size_t size)
{
	DIR *dir = opendir("/sys/class/virtio-ports");
	struct dirent *de;
	int ret = -1;

	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		char file[512], buf[128];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "/sys/class/virtio-ports/%s/name", de->d_name);
		f = fopen(file, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = '\0';
			if (!strcmp(buf, name)) {
				snprintf(path, size, "/dev/%s", de->d_name);
				ret = 0;
			}
		}
		fclose(f);
		if (!ret)
			break;
	}
	closedir(dir);
	return ret;
}

int channel_open(const char *name)
{
	char path[256];
	int fd;

	if (channel_find_port(name, path, sizeof(path)) < 0) {
		fprintf(stderr, "channel: no virtio-serial port named %s (is this guest run by the harness?)\n",
			name);
		return -1;
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "channel: open %s (%s): %s\n", path, name, strerror(errno));
	return fd;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "channel: write: %s\n", strerror(errno));
			return -1;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

int channel_printf(int fd, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(buf))
		return -1;
	/* One write per line: the host sees whole lines, never interleaved. */
	return write_all(fd, buf, len);
}

int channel_read_line(int fd, char *buf, size_t size)
{
	size_t len = 0;

	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "channel: read: %s\n", n ? strerror(errno) : "end of file");
			return -1;
		}
		if (buf[len] == '\n') {
			buf[len] = '\0';
			return 0;
		}
		len++;
	}
	fprintf(stderr, "channel: line longer than %zu bytes\n", size);
	return -1;
}

int channel_copy(int in, int out, off_t len)
{
	char buf[65536];

	while (len > 0) {
		ssize_t n = read(in, buf, len < (off_t)sizeof(buf) ? (size_t)len : sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "channel: read: %s\n", n ? strerror(errno) : "end of file");
			return -1;
		}
		if (write_all(out, buf, n) < 0)
			return -1;
		len -= n;
	}
	return 0;
}
