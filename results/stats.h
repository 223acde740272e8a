/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics over repetitions, and the rule that decides whether two
 * results differ beyond noise.
 *
 * The rule is mmtests': two samples differ significantly when their means
 * are further apart than the sum of their 95% confidence half-widths
 * (Student's t, n-1 degrees of freedom). With fewer than two repetitions on
 * either side nothing is ever called significant.
 */
#ifndef PMEM_RESULTS_STATS_H
#define PMEM_RESULTS_STATS_H

#include <stddef.h>

struct sample_stats {
	size_t n;
	double min, max, median, mean, stddev;
	double ci95;		/* half-width of the 95% confidence interval */
};

/* Sorts v in place. */
void sample_stats(double *v, size_t n, struct sample_stats *s);
/* The same on a copy: v is left as it is. */
void sample_stats_of(const double *v, size_t n, struct sample_stats *s);
/* Two-sided Student t quantile for 95% at df degrees of freedom. */
double t95(size_t df);
/* 1 when a and b differ beyond noise under the rule above. */
int differs_beyond_noise(const struct sample_stats *a, const struct sample_stats *b);

#endif
