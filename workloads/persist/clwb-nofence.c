// SPDX-License-Identifier: GPL-2.0
/*
 * persist=clwb-nofence: a planted bug. Every written line is written back
 * (clwb, else clflushopt) but never fenced, so on an ADR platform the
 * write-backs may still be in flight when the record is acknowledged. The
 * crash tester must catch it under PLATFORM=adr; eADR cannot tell.
 */
#include "cpu_flush.h"
#include "persist.h"

static int clwb_nofence_persist(struct persist_ctx *ctx, void *addr, size_t len)
{
	(void)ctx;
	if (len)
		cpu_writeback_unfenced(addr, len); /* wrong on purpose: no sfence */
	return 0;
}

static struct persist_ops clwb_nofence_ops = {
	.name = "clwb-nofence",
	.help = "planted bug: clwb/clflushopt without the sfence",
	.persist = clwb_nofence_persist,
};
PERSIST_REGISTER(clwb_nofence_ops)
