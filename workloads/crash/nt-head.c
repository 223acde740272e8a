// SPDX-License-Identifier: GPL-2.0
/*
 * A non-temporal copy that forgets its unaligned head (planted). 64
 * records, each starting HEAD bytes into its own page of a MAP_SYNC
 * mapping ($PMEM_MODE, "sync" by default) of a file whose blocks were
 * written and fsynced before. Each record is copied in the shape of the
 * kernel's __memcpy_flushcache(): ordinary (cached) stores up to the first
 * 8-byte boundary, movnti for the rest, which ends 8-byte aligned. Then
 * sfence, and the record is acknowledged.
 *
 * The head shares its line with the first non-temporal stores. The SDM
 * says a non-temporal store to a line in the cache evicts it, not that the
 * evicted bytes are ordered by the next sfence, so __memcpy_flushcache()
 * and PMDK's memmove_movnt write that head back explicitly. This program
 * does not: under the ADR model each record's first line holds, after the
 * sfence, the non-temporal bytes but not the head, in every image.
 *
 * NT_HEAD_WRITEBACK (nt-head-flushed.c, the correct twin) writes the head
 * back with clwb before the non-temporal stores, as the kernel does.
 * nt-head-check.c checks every acknowledged record.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ack.h"
#include "pmem_map.h"
#include "record.h"

#define BS 4096
#define RECORDS 64
#define HEAD 3			/* where a record starts in its page */
#define LEN (1024 - HEAD)	/* it ends 8-byte aligned: a head, no tail */

_Static_assert((LEN - (8 - HEAD)) % 8 == 0, "the non-temporal part is whole 8-byte words");

__attribute__((target("clwb"), unused))
static void clwb(const void *p)
{
	_mm_clwb((void *)p);
}

static void copy_nt(unsigned char *dst, const unsigned char *src, size_t len)
{
	__attribute__((unused)) unsigned char *head = dst;

	for (; len && ((uintptr_t)dst & 7); len--)
		*(volatile unsigned char *)dst++ = *src++;	/* the head: cached stores */
#ifdef NT_HEAD_WRITEBACK
	clwb(head);
#endif
	for (; len >= 8; len -= 8, dst += 8, src += 8) {
		long long v;

		memcpy(&v, src, 8);
		_mm_stream_si64((long long *)dst, v);
	}
}

int main(void)
{
	const char *name = getenv("PMEM_MODE") ? getenv("PMEM_MODE") : "sync";
	const struct map_mode *mode = map_mode_find(name);
	static unsigned char buf[LEN], zeros[BS];
	int fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	unsigned char *map;

	if (!mode) {
		fprintf(stderr, "nt-head: unknown mode '%s'\n", name);
		return 1;
	}
	/* Allocated, written and durable before: only the copies are at stake. */
	for (size_t i = 0; i < RECORDS; i++)
		if (fd < 0 || pwrite(fd, zeros, BS, i * BS) != BS)
			return 1;
	if (fsync(fd) < 0)
		return 1;
	map = map_mode_map(mode, fd, (size_t)BS * RECORDS);
	if (map == MAP_FAILED) {
		perror("nt-head: mmap");
		return 1;
	}
	for (size_t i = 0; i < RECORDS; i++) {
		unsigned char *rec = map + i * BS + HEAD;

		record_fill(buf, LEN, i, i * BS + HEAD);
		copy_nt(rec, buf, LEN);
		_mm_sfence();
		/* The ack names the page, which holds the record and nothing else. */
		if (ack_at(i, i * BS, BS, map + i * BS) < 0)
			return 1;
	}
	return 0;
}
