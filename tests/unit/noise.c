// SPDX-License-Identifier: GPL-2.0
/* Unit test: the statistics and the noise rule on fixture data. */
#include <math.h>
#include <string.h>

#include "results/stats.h"
#include "tap.h"

static void stats(const double *v, size_t n, struct sample_stats *s)
{
	double copy[16];

	memcpy(copy, v, n * sizeof(*v));
	sample_stats(copy, n, s);
}

int main(void)
{
	/* Five repetitions each. */
	static const double base[] = { 100, 102, 98, 101, 99 };
	static const double slower[] = { 120, 119, 121, 118, 122 };	/* clearly apart */
	static const double close[] = { 101, 104, 97, 103, 100 };	/* overlapping */
	static const double wide[] = { 60, 140, 100, 80, 150 };	/* mean differs, noisy */
	static const double same[] = { 16, 16, 16, 16, 16 };
	static const double zero[] = { 0, 0, 0, 0, 0 };
	struct sample_stats a, b;

	tap_plan(9);
	stats(base, 5, &a);
	tap_result(a.median == 100 && a.min == 98 && a.max == 102 && fabs(a.mean - 100) < 1e-9 ?
		   TAP_PASS : TAP_FAIL, "median, min, max, mean", NULL);
	/* s = sqrt(2.5) = 1.5811, ci = 2.776 * s / sqrt(5) = 1.963 */
	tap_result(fabs(a.stddev - 1.5811) < 1e-3 && fabs(a.ci95 - 1.963) < 1e-3 ? TAP_PASS : TAP_FAIL,
		   "sample stddev and 95% CI half-width with t(4) = 2.776", NULL);
	stats(slower, 5, &b);
	tap_result(differs_beyond_noise(&a, &b) ? TAP_PASS : TAP_FAIL,
		   "100 +- 2 vs 120 +- 2: marked beyond noise", NULL);
	stats(close, 5, &b);
	tap_result(!differs_beyond_noise(&a, &b) ? TAP_PASS : TAP_FAIL,
		   "100 +- 2 vs 101 +- 3.5: within noise", NULL);
	stats(wide, 5, &b);
	tap_result(!differs_beyond_noise(&a, &b) ? TAP_PASS : TAP_FAIL,
		   "a mean 6% off but with a wide interval: within noise", NULL);
	stats(same, 5, &a);
	stats(zero, 5, &b);
	tap_result(differs_beyond_noise(&a, &b) ? TAP_PASS : TAP_FAIL,
		   "deterministic counts 16 vs 0: beyond noise", NULL);
	stats(same, 5, &b);
	tap_result(!differs_beyond_noise(&a, &b) ? TAP_PASS : TAP_FAIL, "identical samples: within noise", NULL);
	stats(base, 1, &a);
	stats(slower, 5, &b);
	tap_result(!differs_beyond_noise(&a, &b) ? TAP_PASS : TAP_FAIL,
		   "one repetition is never called significant", NULL);
	tap_result(t95(1) == 12.706 && t95(100) == 1.960 ? TAP_PASS : TAP_FAIL, "t table ends", NULL);
	return tap_exit();
}
