// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a checker slot's report assembly (harness/check_block.c),
 * fed the lines a checker guest sends, split as vm.c splits them. "next"
 * hands out the next image, as the slot does. A report taken for an image
 * is empty or the block begun for that image: never lines said before its
 * "@@begin", nor another image's report; and never over the bound, which
 * this build makes 512 bytes (-DCHECK_BLOCK_MAX) so that inputs reach it.
 */
#include <stdio.h>

#include "check_block.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct check_block b;
	char *text = fuzz_text(data, size), *line, *next, begin[48];
	long item = -1, served = 0;
	size_t n;

	if (!b.buf && !(b.buf = malloc(CHECK_BLOCK_MAX)))
		abort();
	check_block_reset(&b);
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n = strlen(line);
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		if (!strcmp(line, "next")) {
			item = served++;
			check_block_reset(&b);
			continue;
		}
		if (item < 0 || !check_block_line(&b, item, line))
			continue;
		n = snprintf(begin, sizeof(begin), "@@begin %ld\n", item);
		if (b.len > CHECK_BLOCK_MAX || (b.len && (b.len < n || memcmp(b.buf, begin, n) || b.buf[b.len - 1] != '\n')))
			abort();
		item = -1;
	}
	free(text);
	return 0;
}
