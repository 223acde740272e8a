// SPDX-License-Identifier: GPL-2.0
/* Statistics over repetitions: see stats.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double t95(size_t df)
{
	/* Two-sided 0.975 quantiles of Student's t for df = 1..30. */
	static const double t[] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};

	if (df == 0)
		return INFINITY;
	return df <= 30 ? t[df - 1] : 1.960;
}

void sample_stats(double *v, size_t n, struct sample_stats *s)
{
	double sum = 0, sq = 0;
	size_t i;

	s->n = n;
	if (!n) {
		s->min = s->max = s->median = s->mean = s->stddev = NAN;
		s->ci95 = INFINITY;
		return;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / n;
	for (i = 0; i < n; i++)
		sq += (v[i] - s->mean) * (v[i] - s->mean);
	s->min = v[0];
	s->max = v[n - 1];
	s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
	s->ci95 = n > 1 ? t95(n - 1) * s->stddev / sqrt(n) : INFINITY;
}

int differs_beyond_noise(const struct sample_stats *a, const struct sample_stats *b)
{
	if (a->n < 2 || b->n < 2)
		return 0;
	return fabs(a->mean - b->mean) > a->ci95 + b->ci95;
}

void sample_stats_of(const double *v, size_t n, struct sample_stats *s)
{
	double *copy = malloc((n ? n : 1) * sizeof(*copy));

	if (!copy)
		abort();
	memcpy(copy, v, n * sizeof(*copy));
	sample_stats(copy, n, s);
	free(copy);
}
