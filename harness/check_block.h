/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A checker guest's report on one image, as its slot receives it over the
 * control port (checker.c): the lines from "@@begin <i>" to "@@end <i>"
 * for the item i the slot handed out. The guest is untrusted: the block is
 * bounded, and only lines after "@@begin" of the item being checked are
 * taken, so nothing said before, or for another image, becomes its report.
 */
#ifndef HARNESS_CHECK_BLOCK_H
#define HARNESS_CHECK_BLOCK_H

#include <stddef.h>

/* A report larger than this is a broken or lying guest (1024 records take
 * ~20 KiB). The fuzz target builds with a smaller one, to reach it. */
#ifndef CHECK_BLOCK_MAX
#define CHECK_BLOCK_MAX (4u << 20)
#endif

struct check_block {
	char *buf;		/* CHECK_BLOCK_MAX bytes, the caller's */
	size_t len;
	int open;		/* "@@begin <item>" seen, "@@end <item>" not yet */
	int overflow;		/* the block outgrew CHECK_BLOCK_MAX */
};

/* A new item is handed out: no block has begun for it. */
void check_block_reset(struct check_block *b);

/*
 * One line from the guest while item is checked. 1 when the line is
 * "@@end <item>": the report is buf, len bytes, each line ending in '\n';
 * len is 0 when no block began for the item or it overflowed (the pool
 * judges an empty report fs-corrupt). 0 otherwise.
 */
int check_block_line(struct check_block *b, long item, const char *line);

#endif
