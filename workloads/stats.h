/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency samples: every sample is kept (runs are short under emulation), so
 * percentiles are exact nearest-rank values, reported in fio's clat_ns shape
 * plus a log2 histogram.
 */
#ifndef PMEM_STATS_H
#define PMEM_STATS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct lat {
	uint64_t *v;
	size_t n, cap;
};

void lat_add(struct lat *l, uint64_t ns);
void lat_free(struct lat *l);
/* Nearest-rank percentile (0 < p <= 100); 0 when empty. Sorts in place. */
uint64_t lat_percentile(struct lat *l, double p);
/* {"min","max","mean","stddev","N","percentile":{"1.000000":..}} as fio writes
 * it, plus "histogram": [{"le_ns": 2^k, "count": n}, ...]. */
json_t *lat_json(struct lat *l);
uint64_t now_ns(void);

#endif
