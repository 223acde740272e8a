/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The log of tagged-log.c and tagged-log-ordered.c, and the check its
 * recovery makes (the checkers share it).
 *
 * "data" is a superblock page, whose first 8 bytes are the log's tail (the
 * slots in use), then RECORDS slots of 16 cache lines. Record s lies in
 * slot s: a header line (magic, sequence) and PAYLOAD lines, each ending in
 * a tag, s + 1. A torn record is one whose lines are not all of it, and the
 * recovery tells it by the tags: a slot whose header is right and whose
 * every payload line carries its tag is a record. So the payload need not
 * be durable before the header: any line left behind shows by its tag.
 *
 * The planted bug is in that check: it starts at payload line 1, and never
 * looks at line 0's tag (slot_accepted()).
 */
#ifndef PMEM_TAGGED_LOG_H
#define PMEM_TAGGED_LOG_H

#include <stdint.h>

#define LOG_SB 4096			/* the superblock page */
#define LINE 64
#define PAYLOAD 15			/* payload lines per record */
#define SLOT ((PAYLOAD + 1) * LINE)
#define RECORDS 1024
#define LOG_SIZE (LOG_SB + (uint64_t)RECORDS * SLOT)
#define LOG_MAGIC 0x676f6c6767617400ULL	/* "\0tagglog" */

struct log_line {
	uint64_t word[7];
	uint64_t tag;			/* the record's sequence + 1 */
};

struct log_slot {
	uint64_t magic, seq, pad[6];	/* the header line */
	struct log_line payload[PAYLOAD];
};

_Static_assert(sizeof(struct log_slot) == SLOT, "a slot is 16 whole lines");

/* The words of record seq's payload line i. */
static inline void log_line_fill(struct log_line *l, uint64_t seq, unsigned int i)
{
	for (unsigned int w = 0; w < 7; w++)
		l->word[w] = (seq << 32 | i << 8 | w) * 0x9e3779b97f4a7c15ULL;
	l->tag = seq + 1;
}

/*
 * What recovery takes for record seq. Planted: the tags are checked from
 * payload line 1 on, so a slot whose line 0 is left behind (or torn) and
 * whose other lines are all there is taken for a record.
 */
static inline int slot_accepted(const struct log_slot *s, uint64_t seq)
{
	if (s->magic != LOG_MAGIC || s->seq != seq)
		return 0;
	for (unsigned int i = 1; i < PAYLOAD; i++)
		if (s->payload[i].tag != seq + 1)
			return 0;
	return 1;
}

#endif
