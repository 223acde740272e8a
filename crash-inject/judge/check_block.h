/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A checker guest's report on one image, as its slot receives it over the
 * control port (workloads/checker.c): one line, a JSON document (its
 * schema is in crash-inject/judge/judge.h) on the item i the slot handed out.
 * The guest is untrusted: the line is bounded, and what is plainly no
 * report on item i (a line that does not start as a JSON object, a
 * document of another kind or on another image: one said before, or for
 * the image before) is passed over, so it never becomes item i's report.
 * Any other line that starts with '{' is taken, and the pool's loader
 * judges it (check_report_load(), which refuses bad JSON, another schema,
 * wrong types and values out of bounds).
 */
#ifndef HARNESS_CHECK_BLOCK_H
#define HARNESS_CHECK_BLOCK_H

#include <stddef.h>

/* A report this long or longer is a broken or lying guest (1024 records
 * take ~20 KiB). The fuzz target builds with a smaller one, to reach it.
 * The slot's guest hands it longer lines in pieces of this size. */
#ifndef CHECK_BLOCK_MAX
#define CHECK_BLOCK_MAX (4u << 20)
#endif

struct check_block {
	const char *doc;	/* the report: the line itself, not a copy */
	size_t len;		/* its length, 0 when it was over the bound */
};

/*
 * One control line from the guest while item is checked. 1 when it is the
 * item's report: doc, len bytes (no newline), valid until the next line;
 * len is 0 when the line reached CHECK_BLOCK_MAX (the pool refuses an
 * empty report: the image is judged fs-corrupt). 0 otherwise.
 */
int check_block_line(struct check_block *b, long item, const char *line);

#endif
