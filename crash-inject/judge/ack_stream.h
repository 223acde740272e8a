/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The acknowledgements a writer guest sends, as the host accepts them. The
 * guest runs a user's program and is not trusted: every line is checked
 * before it reaches the ack log or the judge.
 *
 *   ack <seq> <off> <len>	decimal, one space apart, nothing else
 *
 * For one place (offset and length) the sequence rises strictly: a record
 * is claimed durable once, and a later record overwrites an earlier one (the
 * judge reads a higher sequence in a slot as an overwrite, not a loss).
 * Places of other lengths are other records: a program with its own checker
 * may acknowledge 8-byte words of a second file at the same offsets. len is not zero,
 * off is a multiple of len (the judge finds a record at slot off / len) and
 * off + len lies within the data file's device. Past max_acks a run is a
 * flood, not a workload.
 */
#ifndef PMEM_ACK_STREAM_H
#define PMEM_ACK_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "judge.h"

/* 4 Mi records: the judge's slot bound, and 96 MiB of host memory. */
#define ACK_STREAM_MAX (1ULL << 22)

struct ack_stream {
	uint64_t limit;		/* every record ends at or before this offset */
	size_t max_acks;	/* 0: ACK_STREAM_MAX */
	size_t n;		/* acks taken */
	/* the last sequence acknowledged at each place: open addressing */
	struct ack_slot { uint64_t off_plus_1, len, seq; } *slots;
	size_t nslots, used;
};

enum ack_take {
	ACK_TAKEN,		/* *rec holds a valid ack */
	ACK_NOT_ACK,		/* not an ack line: the caller's to judge */
	ACK_REFUSED,		/* an ack line the protocol does not allow: see why */
};

enum ack_take ack_stream_take(struct ack_stream *s, const char *line, struct ack_rec *rec,
			      char *why, size_t whylen);

void ack_stream_free(struct ack_stream *s);

/* A guest line fit to quote in one line of a report: printable ASCII, at
 * most out_len - 1 bytes, "..." when cut. */
void ack_quote(const char *line, char *out, size_t out_len);

#endif
