/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pool the counter examples share (counter.c, counter-notx.c,
 * counter-check.c): a root object with a count of committed records and
 * the records themselves. Record i is committed when count > i; a record
 * past count must be all zero, since the transaction that would have
 * written it did not commit.
 */
#ifndef PMEM_EXAMPLE_COUNTER_H
#define PMEM_EXAMPLE_COUNTER_H

#include <stdint.h>
#include <libpmemobj.h>

#define COUNTER_POOL "pool"		/* in the program's directory, /mnt/crash */
#define COUNTER_LAYOUT "pmem-aware-counter"
#define COUNTER_RECORDS 64
#define COUNTER_POOL_SIZE PMEMOBJ_MIN_POOL

/* One cache line, so that each record is its own acknowledgement unit. */
struct counter_rec {
	uint64_t seq;
	uint64_t value;
	uint64_t check;
	uint64_t pad[5];
};

/*
 * count has a cache line to itself: whatever the root's alignment, nothing
 * a transaction writes back shares it, so a store to count that nobody
 * flushes stays unflushed (the twin's bug cannot hide behind a neighbour).
 */
struct counter_root {
	uint64_t count;
	uint8_t pad[56];
	struct counter_rec recs[COUNTER_RECORDS];
};

static inline void counter_rec_fill(struct counter_rec *r, uint64_t seq)
{
	r->seq = seq;
	r->value = (seq + 1) * 0x9e3779b97f4a7c15ULL;
	r->check = r->seq ^ r->value ^ 0x434f554e54455221ULL; /* "!RETNUOC" */
	for (int i = 0; i < 5; i++)
		r->pad[i] = 0;
}

static inline int counter_rec_valid(const struct counter_rec *r, uint64_t seq)
{
	struct counter_rec want;

	counter_rec_fill(&want, seq);
	return r->seq == want.seq && r->value == want.value && r->check == want.check;
}

#endif
