// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the checker guest's document on image 0 (crash-inject/
 * judge.c), judged against a few acks when it loads.
 */
#include "fuzz.h"
#include "crash-inject/judge/check_phases.h"
#include "crash-inject/judge/judge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ack_rec acks[] = { { 0, 0, 4096 }, { 1, 4096, 4096 }, { 9, 1 << 20, 64 } };
	struct check_phases p = { 0 };
	struct check_report r;
	char why[200];

	if (check_report_load((const char *)data, size, 0, &r, &p, why, sizeof(why)) == 0) {
		json_decref(judge(&r, acks, 3));
		check_report_free(&r);
	} else if (r.slots || r.seqs || !why[0]) {
		abort(); /* refused: nothing left to free, and a reason */
	}
	return 0;
}
