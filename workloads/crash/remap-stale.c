// SPDX-License-Identifier: GPL-2.0
/*
 * A virtual address reused for another file, under the ADR model. The
 * program maps "data" at V in the mode $PMEM_MODE and stores four records
 * through it; then it unmaps V without writing them back (the bug), maps
 * another file, "other", at the same V (MAP_FIXED) and, before storing
 * anything through the new mapping, persists the whole of it (clwb over
 * every line, sfence), as a program that pmem_persist()s a mapping it has
 * just made does. Then it acknowledges the records of "data".
 *
 * The write-backs went to V's lines as "other" maps them, and V's pages
 * are not even mapped yet (no access went through the new mapping): on a
 * real CPU the clwb faults them in from "other" and writes those lines
 * back, and nothing of "data". Its records are in the CPU cache when they
 * are acknowledged, and an ADR power loss loses them. A model that
 * resolves V through what it remembers of the old mapping credits the
 * write-backs to the pages of "data" and finds the records durable.
 *
 * With FLUSH_BEFORE_UNMAP (remap-stale-flushed.c, the correct twin) the
 * records are written back and fenced before the unmap: intact.
 *
 * remap-stale-check.c checks the acknowledged records of "data".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ack.h"
#include "cpu_flush.h"
#include "pmem_map.h"
#include "record.h"

#define BS 4096
#define RECORDS 4
#define LEN ((size_t)BS * RECORDS)

/* A file of LEN bytes whose blocks are allocated and durable. */
static int prealloc(const char *name)
{
	static unsigned char zeros[BS];
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);

	for (size_t i = 0; fd >= 0 && i < RECORDS; i++)
		if (pwrite(fd, zeros, BS, i * BS) != BS)
			return -1;
	if (fd < 0 || fsync(fd) < 0) {
		perror("remap-stale: preallocate");
		return -1;
	}
	return fd;
}

int main(void)
{
	const char *name = getenv("PMEM_MODE") ? getenv("PMEM_MODE") : "sync";
	const struct map_mode *mode = map_mode_find(name);
	static unsigned char buf[BS];
	int fd = prealloc("data"), other = prealloc("other");
	unsigned char *map, *again, *view;

	if (!mode) {
		fprintf(stderr, "remap-stale: unknown mode '%s'\n", name);
		return 1;
	}
	if (fd < 0 || other < 0 || ack_open() < 0)
		return 1;
	map = map_mode_map(mode, fd, LEN);
	if (map == MAP_FAILED) {
		perror("remap-stale: mmap data");
		return 1;
	}
	for (size_t i = 0; i < RECORDS; i++) {
		record_fill(buf, BS, i, i * BS);
		memcpy(map + i * BS, buf, BS);
	}
#ifdef FLUSH_BEFORE_UNMAP
	cpu_flush(map, LEN);
#endif
	/* The records are still in the cache; V is given to "other". */
	if (munmap(map, LEN) < 0) {
		perror("remap-stale: munmap");
		return 1;
	}
	again = mmap(map, LEN, PROT_READ | PROT_WRITE, mode->flags | MAP_FIXED, other, 0);
	if (again != map) {
		perror("remap-stale: mmap other at the same address");
		return 1;
	}
	/* Persist the new mapping before using it: V's lines, now "other"'s. */
	cpu_flush(again, LEN);

	/*
	 * A read-only view of "data" names each record's lines to the ADR
	 * model (ack_at), so that a lost record is traced to the store that
	 * lost it. Read faults write nothing back.
	 */
	view = mmap(NULL, LEN, PROT_READ, MAP_SHARED, fd, 0);
	if (view == MAP_FAILED) {
		perror("remap-stale: mmap a view of data");
		return 1;
	}
	for (size_t i = 0; i < RECORDS; i++) {
		(void)*(volatile const unsigned char *)(view + i * BS);
		if (ack_at(i, i * BS, BS, view + i * BS) < 0)
			return 1;
	}
	return 0;
}
