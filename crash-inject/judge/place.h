/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a record acknowledged without an address lies in the ADR model's
 * region: ack(seq, off, len) names only the record's bytes in the data
 * file, and the checker's FIEMAP of that file in an image (its report's
 * data_map, proto/check_report.h) says where those bytes are on the
 * NVDIMM. With that place the attribution (attribute.h) can name the
 * dropped lines inside the record, as it does for ack_at().
 */
#ifndef PMEM_PLACE_H
#define PMEM_PLACE_H

#include <stdint.h>

#include "../model/adr.h"
#include "judge.h"

/*
 * Fill r (seq, len and extents) with where bytes [off, off + len) of the
 * file lie in the region, by map; a region byte is the guest physical
 * address less base, and lies below region_size. Returns the bytes
 * placed: less than len when part of the record is in a hole, outside the
 * region, or beyond ADR_MAX_EXTENTS pieces.
 */
uint64_t record_place(const struct data_map *map, uint64_t base, uint64_t region_size, uint64_t seq, uint64_t off,
		      uint64_t len, struct adr_record *r);

#endif
