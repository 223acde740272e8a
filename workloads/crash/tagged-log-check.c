// SPDX-License-Identifier: GPL-2.0
/*
 * Checker for tagged-log.c and tagged-log-ordered.c, as their recovery
 * reads the log (tagged-log.h): every slot below the tail that recovery
 * takes for a record must hold that record whole, and every record
 * acknowledged ($PMEM_ACKED of them) must be taken and whole. Exit 1: an
 * acknowledged record lost; exit 2: recovery took a torn slot for a
 * record. Either names the record and its first wrong payload line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tagged-log.h"

/* The first payload line of s that is not record seq's, or -1. */
static int first_wrong(const struct log_slot *s, uint64_t seq)
{
	struct log_line want;

	for (unsigned int i = 0; i < PAYLOAD; i++) {
		log_line_fill(&want, seq, i);
		if (memcmp(&want, &s->payload[i], LINE))
			return i;
	}
	return -1;
}

int main(void)
{
	const char *acked_env = getenv("PMEM_ACKED");
	long acked = acked_env ? strtol(acked_env, NULL, 10) : RECORDS;
	int fd = open("data", O_RDONLY);
	struct log_slot s;
	uint64_t tail;

	if (acked > RECORDS)
		acked = RECORDS;
	if (acked <= 0 && fd < 0)
		return 0;
	if (fd < 0 || pread(fd, &tail, sizeof(tail), 0) != sizeof(tail)) {
		fprintf(stderr, "tagged-log-check: data is missing or short\n");
		return 1;
	}
	for (uint64_t seq = 0; seq < RECORDS && (seq < tail || (long)seq < acked); seq++) {
		int taken, wrong;

		if (pread(fd, &s, SLOT, LOG_SB + seq * SLOT) != SLOT) {
			fprintf(stderr, "tagged-log-check: data is short at record %llu\n", (unsigned long long)seq);
			return 1;
		}
		taken = seq < tail && slot_accepted(&s, seq);
		wrong = first_wrong(&s, seq);
		if ((long)seq < acked && (!taken || wrong >= 0)) {
			fprintf(stderr, "tagged-log-check: acknowledged record %llu is lost (%s, payload line %d)\n",
				(unsigned long long)seq, taken ? "taken" : "not taken", wrong);
			return 1;
		}
		if (taken && wrong >= 0) {
			fprintf(stderr, "tagged-log-check: recovery takes slot %llu for a record, but its payload line %d is not the record's\n",
				(unsigned long long)seq, wrong);
			return 2;
		}
	}
	return 0;
}
