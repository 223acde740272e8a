// SPDX-License-Identifier: GPL-2.0
/*
 * persist=libpmem: PMDK's libpmem. pmem_persist() on each written range,
 * which picks clwb/clflushopt/clflush and the fence the way PMDK ships it.
 * libpmem is told the mapping is pmem (PMEM_IS_PMEM_FORCE is not needed:
 * pmem_persist never falls back to msync).
 */
#include <libpmem.h>

#include "persist.h"

static int libpmem_persist(struct persist_ctx *ctx, void *addr, size_t len)
{
	(void)ctx;
	if (len)
		pmem_persist(addr, len);
	return 0;
}

static struct persist_ops libpmem_ops = {
	.name = "libpmem",
	.help = "PMDK pmem_persist() per written range",
	.persist = libpmem_persist,
};
PERSIST_REGISTER(libpmem_ops)
