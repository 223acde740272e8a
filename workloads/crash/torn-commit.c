// SPDX-License-Identifier: GPL-2.0
/*
 * A commit word in its record's cache line, trusted to be durable with
 * the line (planted; the layout is in torn-commit.h). For each of 256
 * records, in a MAP_SYNC mapping ($PMEM_MODE, "sync" by default) of a
 * file whose blocks were written and fsynced before:
 *
 *   store the seven data words, then the commit word (cached stores);
 *   persist the tail (store, clwb, sfence);
 *   write the record's line back (clwb), sfence;
 *   acknowledge the record.
 *
 * The line is written back whole, and the program trusts that it becomes
 * durable whole. x86 promises failure atomicity for 8 bytes, not for a
 * line: a crash while the line is on its way can leave the commit word
 * new and a data word old, and recovery takes the record. A model that
 * keeps or drops whole lines never shows it: the record is one line, and
 * its two images (the line old, the line new) are both consistent.
 *
 * COMMIT_ORDERED (torn-commit-ordered.c, the correct twin) writes the data
 * words back and fences them before it stores the commit word.
 * torn-commit-check.c checks the records.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ack.h"
#include "cpu_flush.h"
#include "pmem_map.h"
#include "torn-commit.h"

int main(void)
{
	const char *name = getenv("PMEM_MODE") ? getenv("PMEM_MODE") : "sync";
	const struct map_mode *mode = map_mode_find(name);
	static unsigned char zeros[LOG_SB];
	int fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	unsigned char *map;
	volatile uint64_t *tail;

	if (!mode) {
		fprintf(stderr, "torn-commit: unknown mode '%s'\n", name);
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
		perror("torn-commit: mmap");
		return 1;
	}
	/* Every page faulted in first: at a record's crash points only the
	 * record is pending. */
	for (uint64_t off = 0; off < LOG_SIZE; off += LOG_SB) {
		*(volatile unsigned char *)(map + off) = 0;
		cpu_flush(map + off, 1);
	}
	tail = (volatile uint64_t *)map;
	for (uint64_t seq = 0; seq < RECORDS; seq++) {
		volatile struct log_rec *r = (volatile struct log_rec *)(map + LOG_SB + seq * 64);

		for (unsigned int w = 0; w < 7; w++)
			r->word[w] = rec_word(seq, w);
#ifdef COMMIT_ORDERED
		*tail = seq + 1;
		cpu_flush((const void *)tail, sizeof(*tail));
		cpu_flush((const void *)r, 64);
		r->commit = seq + 1;
		cpu_flush((const void *)r, 64);
#else
		r->commit = seq + 1;
		*tail = seq + 1;
		cpu_flush((const void *)tail, sizeof(*tail));
		cpu_flush((const void *)r, 64);
#endif
		if (ack_at(seq, LOG_SB + seq * 64, 64, (const void *)r) < 0)
			return 1;
	}
	return 0;
}
