// SPDX-License-Identifier: GPL-2.0
/*
 * persist=ntstore: stores bypass the cache (movnti) and are fenced as they
 * are made, so the batch end has nothing left to do.
 */
#include "cpu_flush.h"
#include "persist.h"

static void ntstore_store(struct persist_ctx *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx;
	cpu_ntstore_copy(dst, src, len);
}

static int ntstore_persist(struct persist_ctx *ctx, void *addr, size_t len)
{
	(void)ctx, (void)addr, (void)len;
	return 0;
}

static struct persist_ops ntstore_ops = {
	.name = "ntstore",
	.help = "non-temporal copy + sfence",
	.store = ntstore_store,
	.persist = ntstore_persist,
};
PERSIST_REGISTER(ntstore_ops)
