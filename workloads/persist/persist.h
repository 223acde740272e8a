/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Persistence methods, one file each under workloads/persist/, in the shape
 * of fio's ioengine_ops: a designated-initialiser table of hooks that
 * registers itself at start-up. Adding persist=foo means adding foo.c.
 * persist/skeleton.txt documents every hook.
 */
#ifndef PMEM_PERSIST_OPS_H
#define PMEM_PERSIST_OPS_H

#include <stddef.h>

struct persist_ctx {
	int fd;			/* the mapped file */
	void *map;		/* the whole mapping */
	size_t map_len;
	void *priv;		/* the method's own state */
};

struct persist_ops {
	const char *name;
	const char *help;
	/* Optional: called once after mmap. Return 0 or -1 (after printing why). */
	int (*init)(struct persist_ctx *ctx);
	/* Optional: store len bytes at dst. Default: memcpy. A method whose
	 * stores are durable by themselves (non-temporal, pmem_memcpy_persist)
	 * does it here and sets stores_durable. */
	void (*store)(struct persist_ctx *ctx, void *dst, const void *src, size_t len);
	/* Required: make [addr, addr + len) durable; called every persist_every
	 * writes with each range written since the last call, then once with
	 * len 0 as "the batch is complete". Return 0 or -1 with errno set. */
	int (*persist)(struct persist_ctx *ctx, void *addr, size_t len);
	/* Optional: called once before munmap. */
	void (*cleanup)(struct persist_ctx *ctx);
	/* The method calls into the kernel (msync, fsync): a syscall per batch. */
	unsigned int syscall : 1;
	struct persist_ops *next;
};

void persist_register(struct persist_ops *ops);
const struct persist_ops *persist_find(const char *name);
/* "none, msync, ..." for messages. */
const char *persist_names(void);

#define PERSIST_REGISTER(ops)						\
	static void __attribute__((constructor)) register_##ops(void)	\
	{								\
		persist_register(&ops);					\
	}

#endif
