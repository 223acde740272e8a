// SPDX-License-Identifier: GPL-2.0
/* Verifiable records: see record.h. */
#include <string.h>

#include "record.h"

uint32_t crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	static uint32_t table[256];
	const unsigned char *p = buf;
	uint32_t i, j;

	if (!table[1])
		for (i = 0; i < 256; i++) {
			uint32_t c = i;

			for (j = 0; j < 8; j++)
				c = c & 1 ? (c >> 1) ^ 0x82f63b78 : c >> 1;
			table[i] = c;
		}
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

#ifdef __x86_64__
/* SSE4.2's crc32 instruction, 8 bytes at a time: the checker verifies every
 * record of every crash image, and under TCG the byte loop above cost more
 * than mounting an ext4 image. */
__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t c = ~crc, v;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&v, p, sizeof(v));
		c = __builtin_ia32_crc32di(c, v);
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return ~(uint32_t)c;
}
#endif

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
#ifdef __x86_64__
	if (__builtin_cpu_supports("sse4.2"))
		return crc32c_sse42(crc, buf, len);
#endif
	return crc32c_sw(crc, buf, len);
}

static unsigned char payload_byte(uint64_t seq, size_t i)
{
	return (unsigned char)(seq * 131 + i * 7 + 1);
}

void record_fill(void *buf, size_t len, uint64_t seq, uint64_t off)
{
	struct record_header h = { RECORD_MAGIC, seq, off, (uint32_t)len, 0 };
	unsigned char *p = buf;
	size_t i;

	for (i = sizeof(h); i < len; i++)
		p[i] = payload_byte(seq, i);
	memcpy(p, &h, sizeof(h));
	h.crc = crc32c(0, p, len);
	memcpy(p, &h, sizeof(h));
}

enum record_state record_check(const void *buf, size_t len, uint64_t off, uint64_t *seq)
{
	const unsigned char *p = buf;
	struct record_header h;
	uint32_t stored, crc;
	size_t i;

	memcpy(&h, p, sizeof(h));
	*seq = h.seq;
	if (h.magic != RECORD_MAGIC || h.off != off || h.len != len) {
		for (i = 0; i < len; i++)
			if (p[i])
				return REC_OTHER;
		return REC_ZERO;
	}
	/* CRC32C chains: crc(header with crc 0) continued over the payload. */
	stored = h.crc;
	h.crc = 0;
	crc = crc32c(0, &h, sizeof(h));
	crc = crc32c(crc, p + sizeof(h), len - sizeof(h));
	return crc == stored ? REC_VALID : REC_TORN;
}
