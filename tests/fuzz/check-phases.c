// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the checker's phase times, as they come with its document
 * on image 0 (crash-inject/judge/judge.c), and their summary
 * (crash-inject/judge/check_phases.c). Believed figures are always sane.
 */
#include <math.h>

#include "crash-inject/judge/check_phases.h"
#include "fuzz.h"
#include "crash-inject/judge/judge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct check_phases p[2] = { 0 };
	struct check_report r;
	char why[200];

	for (int k = 0; k < 2; k++) {
		if (check_report_load((const char *)data, size, 0, &r, &p[k], why, sizeof(why)) == 0)
			check_report_free(&r);
		for (int i = PHASE_MOUNT; p[k].have_guest && i <= PHASE_FSCK; i++)
			if (!isfinite(p[k].ms[i]) || p[k].ms[i] < 0 || p[k].ms[i] >= 3600e3)
				abort();
	}
	json_decref(check_phases_json(p, 2));
	return 0;
}
