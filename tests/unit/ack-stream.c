// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: the ack lines the host accepts from a writer guest
 * (crash-inject/judge/ack_stream.c), with the hostile ones a user's program could
 * send on purpose.
 */
#include <string.h>

#include "crash-inject/judge/ack_stream.h"
#include "tap.h"

#define LIMIT (64ULL << 20)

static struct ack_stream s = { .limit = LIMIT };
static char why[256];

static enum ack_take take(const char *line)
{
	struct ack_rec rec;

	why[0] = '\0';
	return ack_stream_take(&s, line, &rec, why, sizeof(why));
}

static void refused(const char *line, const char *reason, const char *name)
{
	int ok = take(line) == ACK_REFUSED && strstr(why, reason);

	if (!ok)
		tap_diag("'%s': %s", line, why);
	tap_result(ok ? TAP_PASS : TAP_FAIL, name, NULL);
}

int main(void)
{
	struct ack_stream small = { .limit = LIMIT, .max_acks = 3 };
	struct ack_rec rec;
	char line[64], q[16];
	int ok = 1;

	tap_plan(19);
	ok = ack_stream_take(&s, "ack 0 0 4096", &rec, why, sizeof(why)) == ACK_TAKEN &&
	     rec.seq == 0 && rec.off == 0 && rec.len == 4096;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a well-formed ack is taken", NULL);
	tap_result(take("done") == ACK_NOT_ACK && take("acknowledge") == ACK_NOT_ACK ? TAP_PASS : TAP_FAIL,
		   "other lines are left to the caller", NULL);
	/* Two jobs of one file each count from 0: mixed.fio's second job. */
	tap_result(take("ack 0 2097152 4096") == ACK_TAKEN ? TAP_PASS : TAP_FAIL,
		   "the same sequence at another offset is taken", NULL);
	tap_result(take("ack 7 0 4096") == ACK_TAKEN ? TAP_PASS : TAP_FAIL,
		   "a higher sequence at an offset is an overwrite, taken", NULL);
	tap_result(take("ack 2 0 8") == ACK_TAKEN ? TAP_PASS : TAP_FAIL,
		   "a lower sequence for another length at the offset is another record, taken", NULL);
	refused("ack 7 0 4096", "claimed once", "a repeated ack is refused");
	refused("ack 3 0 4096", "after 7 there", "an ack that goes backwards is refused");
	refused("ack -1 4096 4096", "plain decimal", "a negative number is refused");
	refused("ack 1 +4096 4096", "plain decimal", "a signed number is refused");
	refused("ack 1  4096 4096", "plain decimal", "two spaces are refused");
	refused("ack 1 4096 4096 x", "plain decimal", "trailing words are refused");
	refused("ack 18446744073709551616 0 4096", "plain decimal", "a sequence past 2^64 - 1 is refused");
	refused("ack 1 0x1000 4096", "plain decimal", "hexadecimal is refused");
	refused("ack 9 8192 0", "0 bytes", "a record of no bytes is refused");
	refused("ack 9 100 4096", "not a multiple", "an offset the judge cannot place is refused");
	refused("ack 9 67108864 4096", "past the device", "a record past the device is refused");
	refused("ack 9 0 18446744073709551615", "past the device", "a length that wraps the offset is refused");

	for (int i = 0; i < 4; i++) {
		snprintf(line, sizeof(line), "ack %d %d 64", i, 64 * i);
		ok &= ack_stream_take(&small, line, &rec, why, sizeof(why)) == (i < 3 ? ACK_TAKEN : ACK_REFUSED);
	}
	tap_result(ok && strstr(why, "more than 3") ? TAP_PASS : TAP_FAIL, "a flood of acks ends at the bound", NULL);
	ack_stream_free(&small);

	/* 10 000 offsets: the table grows and still finds each one. */
	ok = 1;
	for (int i = 0; i < 10000; i++) {
		snprintf(line, sizeof(line), "ack 100 %d 512", 512 * i);
		ok &= take(line) == ACK_TAKEN;
	}
	snprintf(line, sizeof(line), "ack 50 %d 512", 512 * 9999);
	ok &= take(line) == ACK_REFUSED;
	ack_quote("ack \x1b[2J\nrm -rf / 12345678901234567890", q, sizeof(q));
	ok &= !strcmp(q, "ack ?[2J?rm ...");
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a grown table and a quoted hostile line", NULL);
	ack_stream_free(&s);
	return tap_exit();
}
