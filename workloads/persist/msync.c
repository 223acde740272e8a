// SPDX-License-Identifier: GPL-2.0
/*
 * persist=msync: msync(MS_SYNC) of the whole mapping once per batch, as an
 * application that does not track its own dirty ranges would: the kernel's
 * cost then follows the number of entries tagged dirty.
 */
#include <sys/mman.h>

#include "persist.h"

static int msync_persist(struct persist_ctx *ctx, void *addr, size_t len)
{
	(void)addr;
	if (len)
		return 0; /* one call per batch, at its end */
	return msync(ctx->map, ctx->map_len, MS_SYNC);
}

static struct persist_ops msync_ops = {
	.name = "msync",
	.help = "msync(MS_SYNC) of the mapping per batch",
	.persist = msync_persist,
	.syscall = 1,
};
PERSIST_REGISTER(msync_ops)
