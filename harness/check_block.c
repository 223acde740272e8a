// SPDX-License-Identifier: GPL-2.0
/* A checker guest's report on one image: see check_block.h. */
#include <stdio.h>
#include <string.h>

#include "check_block.h"

void check_block_reset(struct check_block *b)
{
	b->len = 0;
	b->open = 0;
	b->overflow = 0;
}

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
	char begin[40], end[40];

	snprintf(begin, sizeof(begin), "@@begin %ld", item);
	snprintf(end, sizeof(end), "@@end %ld", item);
	if (!strcmp(line, begin)) {
		/* Again: the block starts over. */
		check_block_reset(b);
		b->open = 1;
		append(b, line);
	} else if (!strcmp(line, end)) {
		if (!b->open || b->overflow)
			b->len = 0;
		b->open = 0;
		return 1;
	} else if (b->open) {
		append(b, line);
	}
	return 0;
}
