// SPDX-License-Identifier: GPL-2.0
/* A checker guest's report on one image: see check_block.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_block.h"

static void append(struct check_block *b, const char *line)
{
	size_t n = strlen(line);

	if (b->overflow || b->len + n + 1 > CHECK_BLOCK_MAX) {
		b->overflow = 1;
		return;
	}
	memcpy(b->buf + b->len, line, n);
	b->len += n;
	b->buf[b->len++] = '\n';
}

int check_block_line(struct check_block *b, long item, const char *line)
{
	char end[40];

	snprintf(end, sizeof(end), "@@end %ld", item);
	if (!strncmp(line, "@@begin ", 8) && strtol(line + 8, NULL, 10) == item) {
		b->len = 0;
		b->overflow = 0;
		append(b, line);
	} else if (!strcmp(line, end)) {
		if (b->overflow)
			b->len = 0; /* an empty report: the pool calls it malformed */
		return 1;
	} else if (b->len) {
		append(b, line);
	}
	return 0;
}
