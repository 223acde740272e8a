/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verifiable records, in the spirit of fio's verify=: each bs-sized record
 * starts with a header (magic, sequence number, offset, length, CRC32C over
 * the rest of the record) and carries a payload derived from its sequence
 * number, so a reader can tell a record that is intact from one that is
 * missing (zero), torn (header present, checksum wrong) or something else.
 */
#ifndef PMEM_RECORD_H
#define PMEM_RECORD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RECORD_MAGIC 0x3143455244454d50ULL /* "PMEDREC1" little-endian */

struct record_header {
	uint64_t magic;
	uint64_t seq;
	uint64_t off;
	uint32_t len;
	uint32_t crc;		/* CRC32C of the record with this field zero */
};

enum record_state {
	REC_VALID = 'V',	/* header, checksum and payload right */
	REC_ZERO = 'Z',		/* all zero: never written, or lost */
	REC_TORN = 'T',		/* header present, checksum wrong */
	REC_OTHER = 'X',	/* neither: foreign bytes */
};

/* Fill len >= sizeof(header) bytes as record seq at file offset off. */
void record_fill(void *buf, size_t len, uint64_t seq, uint64_t off);
/* Classify the record at buf; *seq is its header's sequence when present. */
enum record_state record_check(const void *buf, size_t len, uint64_t off, uint64_t *seq);
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);
/* The portable byte-at-a-time CRC32C, which crc32c() replaces where the CPU
 * has SSE4.2; the two must agree (tests/unit/record-crc.c). */
uint32_t crc32c_sw(uint32_t crc, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
