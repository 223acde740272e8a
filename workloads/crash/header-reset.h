/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The log of header-reset.c and header-reset-fields.c, and the check its
 * recovery makes. "data" is a superblock page, then RECORDS records of
 * one cache line each. The superblock's first line is the header: a magic
 * word and the count of records in the log; its second line counts the
 * appends, for statistics. Recovery trusts the header: without the magic
 * the log is empty, else its first `count` records are in it.
 */
#ifndef PMEM_HEADER_RESET_H
#define PMEM_HEADER_RESET_H

#include <stdint.h>

#define LOG_SB 4096
#define RECORDS 256
#define LOG_SIZE (LOG_SB + (uint64_t)RECORDS * 64)
#define LOG_MAGIC 0x31474f4c6d656d70ULL	/* "pmemLOG1" */

struct log_header {
	uint64_t magic;
	uint64_t count;
	uint64_t reserved[6];
};

struct log_rec {
	uint64_t word[8];
};

_Static_assert(sizeof(struct log_header) == 64, "the header is one cache line");
_Static_assert(sizeof(struct log_rec) == 64, "a record is one cache line");

static inline uint64_t rec_word(uint64_t seq, unsigned int w)
{
	return (seq << 8 | w) * 0x9e3779b97f4a7c15ULL;
}

#endif
