// SPDX-License-Identifier: GPL-2.0
/*
 * counter.c's twin, wrong on purpose: the record is written inside a
 * transaction, but the count is bumped after TX_END with a plain store and
 * no pmemobj_persist(), then the record is acknowledged. On an eADR platform
 * every executed store is durable, so the count is there after a crash and
 * nothing is seen; under ADR the count's cache line was never written back,
 * and a crash image holds acknowledged records the count does not include.
 * counter-check.c calls that lost.
 *
 *	make crashtest PROGRAM=examples/pmemobj/counter-notx.c \
 *		CHECK=examples/pmemobj/counter-check.c LDLIBS=-lpmemobj FS=ext4 PLATFORM=adr
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
		fprintf(stderr, "counter-notx: pmemobj_create %s: %s\n", COUNTER_POOL, pmemobj_errormsg());
		return 1;
	}
	root = pmemobj_root(pop, sizeof(struct counter_root));
	if (OID_IS_NULL(root)) {
		fprintf(stderr, "counter-notx: pmemobj_root: %s\n", pmemobj_errormsg());
		return 1;
	}
	r = pmemobj_direct(root);
	for (uint64_t i = 0; i < COUNTER_RECORDS; i++) {
		int committed = 0;

		TX_BEGIN(pop) {
			pmemobj_tx_add_range_direct(&r->recs[i], sizeof(r->recs[i]));
			counter_rec_fill(&r->recs[i], i);
		} TX_ONCOMMIT {
			committed = 1;
		} TX_END
		if (!committed) {
			fprintf(stderr, "counter-notx: transaction %llu aborted: %s\n", (unsigned long long)i,
				pmemobj_errormsg());
			return 1;
		}
		r->count = i + 1;	/* the bug: outside the transaction, never persisted */
		if (ack_at(i, i * sizeof(r->recs[i]), sizeof(r->recs[i]), &r->recs[i]) < 0)
			return 1;
	}
	pmemobj_close(pop);
	return 0;
}
