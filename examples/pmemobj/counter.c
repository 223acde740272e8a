// SPDX-License-Identifier: GPL-2.0
/*
 * A small libpmemobj program, correct: each record and the count of
 * committed records change inside one transaction, and the record is
 * acknowledged only after TX_END, once the transaction has committed (and
 * libpmemobj has written it back and fenced). Every crash image must pass
 * counter-check.c: `pmempool check`, then count >= acknowledged records,
 * every counted record whole, nothing past the count.
 *
 *	make crashtest PROGRAM=examples/pmemobj/counter.c \
 *		CHECK=examples/pmemobj/counter-check.c LDLIBS=-lpmemobj FS=ext4
 *
 * counter-notx.c is its twin with the bug.
 */
#include <stdio.h>

#include "ack.h"
#include "counter.h"

int main(void)
{
	PMEMobjpool *pop = pmemobj_create(COUNTER_POOL, COUNTER_LAYOUT, COUNTER_POOL_SIZE, 0644);
	struct counter_root *r;
	PMEMoid root;

	if (!pop) {
		fprintf(stderr, "counter: pmemobj_create %s: %s\n", COUNTER_POOL, pmemobj_errormsg());
		return 1;
	}
	root = pmemobj_root(pop, sizeof(struct counter_root));	/* zeroed, and persisted */
	if (OID_IS_NULL(root)) {
		fprintf(stderr, "counter: pmemobj_root: %s\n", pmemobj_errormsg());
		return 1;
	}
	r = pmemobj_direct(root);
	for (uint64_t i = 0; i < COUNTER_RECORDS; i++) {
		int committed = 0;

		TX_BEGIN(pop) {
			pmemobj_tx_add_range_direct(&r->recs[i], sizeof(r->recs[i]));
			pmemobj_tx_add_range_direct(&r->count, sizeof(r->count));
			counter_rec_fill(&r->recs[i], i);
			r->count = i + 1;
		} TX_ONCOMMIT {
			committed = 1;
		} TX_END
		if (!committed) {
			fprintf(stderr, "counter: transaction %llu aborted: %s\n", (unsigned long long)i,
				pmemobj_errormsg());
			return 1;
		}
		if (ack_at(i, i * sizeof(r->recs[i]), sizeof(r->recs[i]), &r->recs[i]) < 0)
			return 1;
	}
	pmemobj_close(pop);
	return 0;
}
