// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a checker slot's report taking (crash-inject/judge/check_block.c), fed
 * the lines a checker guest sends, split as vm.c splits them for the slot
 * (a line past CHECK_BLOCK_MAX in pieces of that size). "next" hands out
 * the next image, as the slot does. A report taken for an image is empty
 * or the very line just sent: never one said before, nor a schema-1
 * document on another image or of another kind; and never at or over the
 * bound, which this build makes 512 bytes (-DCHECK_BLOCK_MAX) so that
 * inputs reach it.
 */
#include <jansson.h>
#include <stdio.h>

#include "crash-inject/judge/check_block.h"
#include "fuzz.h"

/* Whether doc plainly says it is on another image or of another kind. */
static int another(const char *doc, size_t len, long item)
{
	json_t *d = json_loadb(doc, len, 0, NULL), *schema, *image, *kind;
	int ret;

	schema = json_object_get(d, "schema");
	image = json_object_get(d, "image");
	kind = json_object_get(d, "kind");
	ret = json_is_integer(schema) && json_integer_value(schema) == 1 &&
	      ((json_is_integer(image) && json_integer_value(image) != item) ||
	       (json_is_string(kind) && strcmp(json_string_value(kind), "check")));
	json_decref(d);
	return ret;
}

static void take(struct check_block *b, long *item, const char *line)
{
	if (*item < 0 || !check_block_line(b, *item, line))
		return;
	if (b->len >= CHECK_BLOCK_MAX || (b->len && (b->doc != line || b->len != strlen(line) || line[0] != '{' ||
						     another(b->doc, b->len, *item))))
		abort();
	*item = -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct check_block b;
	char *text = fuzz_text(data, size), *line, *next;
	long item = -1, served = 0;
	size_t n;

	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n = strlen(line);
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (!strcmp(line, "next")) {
			item = served++;
			continue;
		}
		/* vm.c's pieces of an endless line, then its rest. */
		for (; n >= CHECK_BLOCK_MAX; n -= CHECK_BLOCK_MAX, line += CHECK_BLOCK_MAX) {
			char piece[CHECK_BLOCK_MAX + 1];

			memcpy(piece, line, CHECK_BLOCK_MAX);
			piece[CHECK_BLOCK_MAX] = '\0';
			take(&b, &item, piece);
		}
		take(&b, &item, line);
	}
	free(text);
	return 0;
}
