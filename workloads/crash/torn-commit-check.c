// SPDX-License-Identifier: GPL-2.0
/*
 * Checker for torn-commit.c and torn-commit-ordered.c, as their recovery
 * reads the log (torn-commit.h): every record below the tail whose commit
 * word is set must hold its seven data words, and every record
 * acknowledged ($PMEM_ACKED of them) must be committed and whole. Exit 1:
 * an acknowledged record lost; exit 2: recovery took a record whose data
 * is not all there. Either names the record and its first wrong word.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "torn-commit.h"

int main(void)
{
	const char *acked_env = getenv("PMEM_ACKED");
	long acked = acked_env ? strtol(acked_env, NULL, 10) : RECORDS;
	int fd = open("data", O_RDONLY);
	struct log_rec r;
	uint64_t tail;

	if (acked > RECORDS)
		acked = RECORDS;
	if (acked <= 0 && fd < 0)
		return 0;
	if (fd < 0 || pread(fd, &tail, sizeof(tail), 0) != sizeof(tail)) {
		fprintf(stderr, "torn-commit-check: data is missing or short\n");
		return 1;
	}
	for (uint64_t seq = 0; seq < RECORDS && (seq < tail || (long)seq < acked); seq++) {
		int taken, wrong = -1;

		if (pread(fd, &r, sizeof(r), LOG_SB + seq * 64) != sizeof(r)) {
			fprintf(stderr, "torn-commit-check: data is short at record %llu\n", (unsigned long long)seq);
			return 1;
		}
		taken = seq < tail && r.commit == seq + 1;
		for (unsigned int w = 0; w < 7 && wrong < 0; w++)
			if (r.word[w] != rec_word(seq, w))
				wrong = w;
		if ((long)seq < acked && (!taken || wrong >= 0)) {
			fprintf(stderr, "torn-commit-check: acknowledged record %llu is lost (%s, word %d)\n",
				(unsigned long long)seq, taken ? "committed" : "not committed", wrong);
			return 1;
		}
		if (taken && wrong >= 0) {
			fprintf(stderr, "torn-commit-check: recovery takes record %llu, but its word %d is not the record's\n",
				(unsigned long long)seq, wrong);
			return 2;
		}
	}
	return 0;
}
