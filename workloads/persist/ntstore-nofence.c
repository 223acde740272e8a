// SPDX-License-Identifier: GPL-2.0
/*
 * persist=ntstore-nofence: a planted bug. Records are copied with
 * non-temporal stores that are never fenced, so on an ADR platform they may
 * still sit in the write-combining buffers when the record is acknowledged.
 * The crash tester must catch it under PLATFORM=adr; eADR cannot tell.
 */
#include "cpu_flush.h"
#include "persist.h"

static void ntstore_nofence_store(struct persist_ctx *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx;
	cpu_ntstore_copy_unfenced(dst, src, len); /* wrong on purpose: no sfence */
}

static int ntstore_nofence_persist(struct persist_ctx *ctx, void *addr, size_t len)
{
	(void)ctx, (void)addr, (void)len;
	return 0;
}

static struct persist_ops ntstore_nofence_ops = {
	.name = "ntstore-nofence",
	.help = "planted bug: non-temporal copy without the sfence",
	.store = ntstore_nofence_store,
	.persist = ntstore_nofence_persist,
};
PERSIST_REGISTER(ntstore_nofence_ops)
