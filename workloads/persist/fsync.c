// SPDX-License-Identifier: GPL-2.0
/* persist=fsync: fsync(fd) per batch: data write-back and metadata commit. */
#include <unistd.h>

#include "persist.h"

static int fsync_persist(struct persist_ctx *ctx, void *addr, size_t len)
{
	(void)addr;
	if (len)
		return 0;
	return fsync(ctx->fd);
}

static struct persist_ops fsync_ops = {
	.name = "fsync",
	.help = "fsync(fd) per batch",
	.persist = fsync_persist,
	.syscall = 1,
};
PERSIST_REGISTER(fsync_ops)
