// SPDX-License-Identifier: GPL-2.0
/* Whole text files: see textfile.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "textfile.h"

char *read_text_file(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	if (f != stdin)
		fclose(f);
	return buf;
}

int text_file_begin(struct text_out *o, const char *path, char *why, size_t len)
{
	/* PATH.tmp must fit, and then PATH does. */
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.tmp", path) >= sizeof(o->tmp)) {
		snprintf(why, len, "path too long: %s", path);
		return -1;
	}
	snprintf(o->path, sizeof(o->path), "%s", path);
	o->f = fopen(o->tmp, "w");
	if (!o->f) {
		snprintf(why, len, "cannot write %s: %s", o->tmp, strerror(errno));
		return -1;
	}
	return 0;
}

int text_file_commit(struct text_out *o, char *why, size_t len)
{
	int bad = fflush(o->f) || ferror(o->f);

	bad |= fclose(o->f);
	o->f = NULL;
	if (bad || rename(o->tmp, o->path) < 0) {
		snprintf(why, len, "cannot write %s: %s", o->path, strerror(errno));
		unlink(o->tmp);
		return -1;
	}
	return 0;
}
