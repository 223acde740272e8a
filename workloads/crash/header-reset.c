// SPDX-License-Identifier: GPL-2.0
/*
 * A header rebuilt in place: cleared, then its fields set (planted; the
 * layout is in header-reset.h). For each of 256 records, in a MAP_SYNC
 * mapping ($PMEM_MODE, "sync" by default) of a file whose blocks were
 * written and fsynced before:
 *
 *   store the record's line, write it back, sfence: it is durable;
 *   rebuild the header as an init function would: clear its words, then
 *   store the magic and the new count (cached stores);
 *   count the append in the statistics line (store, clwb, sfence);
 *   write the header back, sfence;
 *   acknowledge the record.
 *
 * The header line is written back once, after its last store, and the
 * program trusts it to become durable as the old header or the new one.
 * A cache may write a line back at any moment: between the clearing and
 * the stores that follow it, the line holds no magic, and a crash after
 * such a write-back leaves a log that recovery takes as empty, every
 * acknowledged record lost. A model in which a line is either as last
 * made durable or as the CPU holds it now never shows that value; a torn
 * line does not either (each word is old or new, and the magic is the
 * same in both).
 *
 * HEADER_FIELDS (header-reset-fields.c, the correct twin) stores the new
 * count over the old one and leaves the other words as they are.
 * header-reset-check.c checks the log.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ack.h"
#include "cpu_flush.h"
#include "pmem_map.h"
#include "header-reset.h"

int main(void)
{
	const char *name = getenv("PMEM_MODE") ? getenv("PMEM_MODE") : "sync";
	const struct map_mode *mode = map_mode_find(name);
	static unsigned char zeros[LOG_SB];
	int fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	volatile struct log_header *hdr;
	volatile uint64_t *appends;
	unsigned char *map;

	if (!mode) {
		fprintf(stderr, "header-reset: unknown mode '%s'\n", name);
		return 1;
	}
	/* Allocated, written and durable before: only the log is at stake. */
	for (uint64_t off = 0; off < LOG_SIZE; off += LOG_SB)
		if (fd < 0 || pwrite(fd, zeros, LOG_SB, off) != LOG_SB)
			return 1;
	if (fsync(fd) < 0)
		return 1;
	map = map_mode_map(mode, fd, LOG_SIZE);
	if (map == MAP_FAILED) {
		perror("header-reset: mmap");
		return 1;
	}
	/* Every page faulted in first: at a record's crash points only the
	 * log's own lines are pending. */
	for (uint64_t off = 0; off < LOG_SIZE; off += LOG_SB) {
		*(volatile unsigned char *)(map + off) = 0;
		cpu_flush(map + off, 1);
	}
	hdr = (volatile struct log_header *)map;
	appends = (volatile uint64_t *)(map + 64);
	hdr->magic = LOG_MAGIC;
	hdr->count = 0;
	cpu_flush((const void *)hdr, sizeof(*hdr));
	for (uint64_t seq = 0; seq < RECORDS; seq++) {
		volatile struct log_rec *r = (volatile struct log_rec *)(map + LOG_SB + seq * 64);

		for (unsigned int w = 0; w < 8; w++)
			r->word[w] = rec_word(seq, w);
		cpu_flush((const void *)r, sizeof(*r));
#ifndef HEADER_FIELDS
		hdr->magic = 0;
		hdr->count = 0;
		for (unsigned int w = 0; w < 6; w++)
			hdr->reserved[w] = 0;
		hdr->magic = LOG_MAGIC;
#endif
		hdr->count = seq + 1;
		*appends = seq + 1;
		cpu_flush((const void *)appends, sizeof(*appends));
		cpu_flush((const void *)hdr, sizeof(*hdr));
		if (ack_at(seq, LOG_SB + seq * 64, 64, (const void *)r) < 0)
			return 1;
	}
	return 0;
}
