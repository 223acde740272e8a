// SPDX-License-Identifier: GPL-2.0
/* Latency samples: see stats.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stats.h"

/* fio's default percentile_list. */
static const double fio_percentiles[] = {
	1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99,
};

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void lat_add(struct lat *l, uint64_t ns)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v) {
			perror("pmem-writer: latency samples");
			exit(1);
		}
	}
	l->v[l->n++] = ns;
}

void lat_free(struct lat *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t lat_percentile(struct lat *l, double p)
{
	size_t rank;

	if (!l->n)
		return 0;
	qsort(l->v, l->n, sizeof(*l->v), cmp_u64);
	rank = (size_t)ceil(p / 100.0 * l->n);
	return l->v[rank ? rank - 1 : 0];
}

json_t *lat_json(struct lat *l)
{
	json_t *o = json_object(), *pct = json_object(), *hist = json_array();
	double sum = 0, sq = 0, mean;
	size_t i, bucket_count = 0;
	uint64_t bucket = 1;
	char key[32];

	for (i = 0; i < l->n; i++)
		sum += l->v[i];
	mean = l->n ? sum / l->n : 0;
	for (i = 0; i < l->n; i++)
		sq += (l->v[i] - mean) * (l->v[i] - mean);
	for (i = 0; i < sizeof(fio_percentiles) / sizeof(fio_percentiles[0]); i++) {
		snprintf(key, sizeof(key), "%f", fio_percentiles[i]);
		json_object_set_new(pct, key, json_integer(lat_percentile(l, fio_percentiles[i])));
	}
	/* l->v is sorted now: one pass builds the log2 histogram. */
	for (i = 0; i < l->n; i++) {
		while (l->v[i] > bucket) {
			if (bucket_count)
				json_array_append_new(hist, json_pack("{s:I, s:I}", "le_ns", (json_int_t)bucket,
								      "count", (json_int_t)bucket_count));
			bucket_count = 0;
			bucket <<= 1;
		}
		bucket_count++;
	}
	if (bucket_count)
		json_array_append_new(hist, json_pack("{s:I, s:I}", "le_ns", (json_int_t)bucket,
						      "count", (json_int_t)bucket_count));
	json_object_set_new(o, "min", json_integer(l->n ? l->v[0] : 0));
	json_object_set_new(o, "max", json_integer(l->n ? l->v[l->n - 1] : 0));
	json_object_set_new(o, "mean", json_real(mean));
	json_object_set_new(o, "stddev", json_real(l->n > 1 ? sqrt(sq / (l->n - 1)) : 0));
	json_object_set_new(o, "N", json_integer(l->n));
	json_object_set_new(o, "percentile", pct);
	json_object_set_new(o, "histogram", hist);
	return o;
}
