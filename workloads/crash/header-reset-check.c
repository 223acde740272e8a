// SPDX-License-Identifier: GPL-2.0
/*
 * Checker for header-reset.c and header-reset-fields.c, as their recovery
 * reads the log (header-reset.h): without the magic the log is empty,
 * else its first `count` records must be whole, and every record
 * acknowledged ($PMEM_ACKED of them) must be among them. Exit 1: an
 * acknowledged record lost; exit 2: recovery took a record that is not
 * all there. Either names the record.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "header-reset.h"

int main(void)
{
	const char *acked_env = getenv("PMEM_ACKED");
	long acked = acked_env ? strtol(acked_env, NULL, 10) : RECORDS;
	int fd = open("data", O_RDONLY);
	struct log_header h;
	struct log_rec r;
	uint64_t count;

	if (acked > RECORDS)
		acked = RECORDS;
	if (acked <= 0 && fd < 0)
		return 0;
	if (fd < 0 || pread(fd, &h, sizeof(h), 0) != sizeof(h)) {
		fprintf(stderr, "header-reset-check: data is missing or short\n");
		return 1;
	}
	count = h.magic == LOG_MAGIC ? h.count : 0;
	if (count > RECORDS)
		count = RECORDS;
	if ((long)count < acked) {
		fprintf(stderr, "header-reset-check: acknowledged record %llu is lost: the header %s\n",
			(unsigned long long)count, h.magic == LOG_MAGIC ? "counts fewer records" : "has no magic, and recovery takes the log as empty");
		return 1;
	}
	for (uint64_t seq = 0; seq < count; seq++) {
		if (pread(fd, &r, sizeof(r), LOG_SB + seq * 64) != sizeof(r)) {
			fprintf(stderr, "header-reset-check: data is short at record %llu\n", (unsigned long long)seq);
			return 1;
		}
		for (unsigned int w = 0; w < 8; w++)
			if (r.word[w] != rec_word(seq, w)) {
				fprintf(stderr, "header-reset-check: recovery takes record %llu, but its word %u is not the record's\n",
					(unsigned long long)seq, w);
				return 2;
			}
	}
	return 0;
}
