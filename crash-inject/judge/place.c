// SPDX-License-Identifier: GPL-2.0
/* A record's place in the region by its file's extents: see place.h. */
#include "place.h"

uint64_t record_place(const struct data_map *map, uint64_t base, uint64_t region_size, uint64_t seq, uint64_t off,
		      uint64_t len, struct adr_record *r)
{
	/* An ack's numbers are the guest's: its end must not wrap either. */
	uint64_t placed = 0, end = len > UINT64_MAX - off ? UINT64_MAX : off + len;

	*r = (struct adr_record){ .seq = seq, .len = len };
	for (size_t i = 0; i < map->n && r->n < ADR_MAX_EXTENTS; i++) {
		uint64_t lo = map->ext[i].logical, hi = lo + map->ext[i].len;
		uint64_t from = off > lo ? off : lo, to = end < hi ? end : hi, at;

		if (from >= to)
			continue;
		/* The loader bounds every number of a map by 2^52 (judge.c),
		 * so these sums cannot wrap. */
		at = map->dev_phys + map->ext[i].physical + (from - lo);
		if (at < base || at - base > region_size || to - from > region_size - (at - base))
			continue;
		r->ext[r->n].rec_off = from - off;
		r->ext[r->n].region_off = at - base;
		r->ext[r->n].len = to - from;
		r->n++;
		placed += to - from;
	}
	return placed;
}
