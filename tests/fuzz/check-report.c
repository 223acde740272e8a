// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the checker guest's report on one image (crash-inject/
 * judge.c), judged against a few acks when it parses.
 */
#include "fuzz.h"
#include "judge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ack_rec acks[] = { { 0, 0, 4096 }, { 1, 4096, 4096 }, { 9, 1 << 20, 64 } };
	struct check_report r;
	char *text = fuzz_text(data, size);

	if (check_report_parse(text, &r) == 0) {
		json_decref(judge(&r, acks, 3));
		check_report_free(&r);
	}
	free(text);
	return 0;
}
