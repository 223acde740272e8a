// SPDX-License-Identifier: GPL-2.0
/*
 * A log whose records are told complete by tags, not by order (planted;
 * the layout and the check are in tagged-log.h). For each of 1024
 * records, in a MAP_SYNC mapping ($PMEM_MODE, "sync" by default) of a
 * file whose blocks were written and fsynced before:
 *
 *   store the 15 payload lines, then the header line (cached stores);
 *   persist the tail (store, clwb, sfence): the slot is in use;
 *   write the slot's 16 lines back (clwb), one sfence;
 *   acknowledge the record.
 *
 * No fence orders the payload before the header: recovery checks every
 * payload line's tag, so a slot that a crash left torn is no record. But
 * its check starts at line 1. Under ADR a crash after the tail's fence can
 * find the header and payload lines 1 to 14 durable and line 0 not, and
 * recovery takes the slot for a record that was never written whole.
 * That is one state of 16 lines: a random subset keeping each line with
 * probability 1/2 is it once in 65536; the image that drops only the
 * line stored first (drop-one) is it always. The strict-ADR image (no
 * header) and the eADR image (every line) are both consistent.
 *
 * LOG_ORDERED (tagged-log-ordered.c, the correct twin) writes the payload
 * back and fences it before it stores the header: the header is never
 * durable before its payload, whatever the tags say.
 * tagged-log-check.c checks the records.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ack.h"
#include "cpu_flush.h"
#include "pmem_map.h"
#include "tagged-log.h"

int main(void)
{
	const char *name = getenv("PMEM_MODE") ? getenv("PMEM_MODE") : "sync";
	const struct map_mode *mode = map_mode_find(name);
	static unsigned char zeros[LOG_SB];
	int fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	unsigned char *map;
	uint64_t *tail;

	if (!mode) {
		fprintf(stderr, "tagged-log: unknown mode '%s'\n", name);
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
		perror("tagged-log: mmap");
		return 1;
	}
	/* Every page faulted in (and its fault's metadata made durable) first,
	 * so that at a record's crash points only the record is pending. */
	for (uint64_t off = 0; off < LOG_SIZE; off += LOG_SB) {
		*(volatile unsigned char *)(map + off) = 0;
		cpu_flush(map + off, 1);
	}
	tail = (uint64_t *)map;
	for (uint64_t seq = 0; seq < RECORDS; seq++) {
		struct log_slot *s = (struct log_slot *)(map + LOG_SB + seq * SLOT);

		for (unsigned int i = 0; i < PAYLOAD; i++)
			log_line_fill(&s->payload[i], seq, i);
#ifdef LOG_ORDERED
		*tail = seq + 1;
		cpu_flush(tail, sizeof(*tail));
		cpu_flush(s->payload, sizeof(s->payload));
		s->magic = LOG_MAGIC;
		s->seq = seq;
		cpu_flush(s, LINE);
#else
		s->magic = LOG_MAGIC;
		s->seq = seq;
		*tail = seq + 1;
		cpu_flush(tail, sizeof(*tail));
		cpu_flush(s, SLOT);
#endif
		if (ack_at(seq, LOG_SB + seq * SLOT, SLOT, s) < 0)
			return 1;
	}
	return 0;
}
