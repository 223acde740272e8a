// SPDX-License-Identifier: GPL-2.0
/* persist=none: stores only; durability is whatever the platform gives. */
#include "persist.h"

static int none_persist(struct persist_ctx *ctx, void *addr, size_t len)
{
	(void)ctx, (void)addr, (void)len;
	return 0;
}

static struct persist_ops none_ops = {
	.name = "none",
	.help = "no persistence call",
	.persist = none_persist,
};
PERSIST_REGISTER(none_ops)
