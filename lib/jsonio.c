// SPDX-License-Identifier: GPL-2.0
/* Result documents: see jsonio.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "jsonio.h"

int json_write_atomic_why(const char *path, json_t *doc, char *why, size_t len)
{
	char tmp[4096];
	int fd, err;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = errno;
		snprintf(why, len, "cannot write %s: %s", tmp, strerror(err));
		errno = err;
		return -1;
	}
	if (json_dumpfd(doc, fd, JSON_INDENT(2) | JSON_SORT_KEYS) < 0 ||
	    write(fd, "\n", 1) != 1 || fsync(fd) < 0) {
		err = errno;
		snprintf(why, len, "cannot write %s: %s (disk full?)", tmp, strerror(err));
		close(fd);
		unlink(tmp);
		errno = err;
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		err = errno;
		snprintf(why, len, "cannot write %s: %s", path, strerror(err));
		unlink(tmp);
		errno = err;
		return -1;
	}
	return 0;
}

int json_write_atomic(const char *path, json_t *doc)
{
	char why[WHY_MAX];
	int err;

	if (!json_write_atomic_why(path, doc, why, sizeof(why)))
		return 0;
	err = errno;
	fprintf(stderr, "%s\n", why);
	errno = err;
	return -1;
}

json_t *json_read_file(const char *path)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);

	if (!doc)
		fprintf(stderr, "%s:%d: %s\n", path, err.line, err.text);
	return doc;
}
