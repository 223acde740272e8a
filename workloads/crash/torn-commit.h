/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The log of torn-commit.c and torn-commit-ordered.c, and the check its
 * recovery makes (the checkers share it). "data" is a superblock page,
 * whose first 8 bytes are the log's tail, then RECORDS records of one
 * cache line each: seven data words and a commit word, the record's
 * sequence + 1. Recovery takes a line below the tail whose commit word is
 * right for a record.
 */
#ifndef PMEM_TORN_COMMIT_H
#define PMEM_TORN_COMMIT_H

#include <stdint.h>

#define LOG_SB 4096
#define RECORDS 256
#define LOG_SIZE (LOG_SB + (uint64_t)RECORDS * 64)

struct log_rec {
	uint64_t word[7];
	uint64_t commit;		/* seq + 1 */
};

_Static_assert(sizeof(struct log_rec) == 64, "a record is one cache line");

static inline uint64_t rec_word(uint64_t seq, unsigned int w)
{
	return (seq << 8 | w) * 0x9e3779b97f4a7c15ULL;
}

#endif
