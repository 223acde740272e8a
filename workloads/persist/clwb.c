// SPDX-License-Identifier: GPL-2.0
/*
 * persist=clwb: write back the cache lines of every written range from user
 * space (clwb, else clflushopt, else clflush, by CPUID) and fence once per
 * batch. No system call: what MAP_PMEM_AWARE is for.
 */
#include "cpu_flush.h"
#include "persist.h"

static int clwb_persist(struct persist_ctx *ctx, void *addr, size_t len)
{
	(void)ctx;
	if (len)
		cpu_flush(addr, len); /* cpu_flush ends with sfence */
	return 0;
}

static struct persist_ops clwb_ops = {
	.name = "clwb",
	.help = "clwb/clflushopt/clflush + sfence from user space",
	.persist = clwb_persist,
};
PERSIST_REGISTER(clwb_ops)
