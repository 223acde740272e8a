// SPDX-License-Identifier: GPL-2.0
/* Unit test: CRC32C, the SSE4.2 path against the portable one (workloads/record.c). */
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "tap.h"

int main(void)
{
	unsigned char buf[4096 + 7];
	unsigned int seed = 7;
	size_t len, bad = 0;

	tap_plan(4);
	tap_result(crc32c(0, "123456789", 9) == 0xe3069283 ? TAP_PASS : TAP_FAIL,
		   "crc32c(\"123456789\") is the standard check value 0xe3069283", NULL);
	tap_result(crc32c_sw(0, "123456789", 9) == 0xe3069283 ? TAP_PASS : TAP_FAIL,
		   "the portable path gives it too", NULL);
	for (len = 0; len < sizeof(buf); len++)
		buf[len] = rand_r(&seed);
	for (len = 0; len <= sizeof(buf); len += 1 + len / 3)
		bad += crc32c(0x1234, buf, len) != crc32c_sw(0x1234, buf, len) ||
		       crc32c(0, buf + 3, len > 3 ? len - 3 : 0) != crc32c_sw(0, buf + 3, len > 3 ? len - 3 : 0);
	tap_result(!bad ? TAP_PASS : TAP_FAIL, "both paths agree on every length up to 4103, chained and unaligned", NULL);
	record_fill(buf, 4096, 42, 8192);
	{
		uint64_t seq;

		tap_result(record_check(buf, 4096, 8192, &seq) == REC_VALID && seq == 42 ? TAP_PASS : TAP_FAIL,
			   "a filled record checks valid", NULL);
	}
	return tap_exit();
}
