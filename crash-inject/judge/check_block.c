// SPDX-License-Identifier: GPL-2.0
/* A checker guest's report on one image: see check_block.h. */
#include <jansson.h>
#include <string.h>

#include "judge.h"
#include "check_block.h"

int check_block_line(struct check_block *b, long item, const char *line)
{
	size_t n = strnlen(line, CHECK_BLOCK_MAX);
	json_t *doc;
	int other;

	b->doc = line;
	b->len = 0;
	/* A piece of a longer line, whoever it was for: the report is lost. */
	if (n >= CHECK_BLOCK_MAX)
		return 1;
	if (line[0] != '{')
		return 0;
	/* A line that is no JSON at all, but begins as an object, is taken:
	 * the pool refuses it with the reason, rather than waiting for a
	 * report that will not come. */
	doc = json_loadb(line, n, 0, NULL);
	other = doc && check_doc_is_other(doc, item);
	json_decref(doc);
	if (other)
		return 0;
	b->len = n;
	return 1;
}
