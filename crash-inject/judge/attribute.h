/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why an ADR crash image lost what it lost: the pending lines it dropped,
 * grouped by the store that last wrote them, and for each lost or torn
 * record the dropped lines that lie inside it.
 */
#ifndef PMEM_ATTRIBUTE_H
#define PMEM_ATTRIBUTE_H

#include <jansson.h>
#include <stddef.h>

#include "../model/adr.h"
#include "symbolize.h"

/* Where each acknowledged record lies; records[i] for acks[i], or n == 0. */
struct record_map {
	struct adr_record *records;
	size_t n;
};

/*
 * Add to verdict (judge()'s JSON): "dropped_lines", "dropped_sites" (site,
 * why, lines; biggest first, at most 16) and, for each seq in "lost" and
 * "torn", "causes": [{seq, site, why, lines}] naming the dropped lines in
 * that record, or {seq, site: null, ...} when none is inside it (the loss
 * came through metadata or lines outside the record). keep is an image's
 * mask (adr.h): a line it tears counts as dropped. A line it takes at an
 * earlier value counts as dropped too: "dropped_sites" names the store of
 * that value, a record's cause the line's last store, its own bytes.
 */
void attribute_image(json_t *verdict, const struct adr_point *pt, const unsigned char *keep,
		     const struct record_map *records, struct symbolizer *sym);

/*
 * A scenario's causes, summed over its images so that the summary can name
 * them: tally is a JSON object the caller starts empty; cause_tally_add()
 * counts one image's "causes" into it; cause_tally_list() returns the
 * entries, biggest first, at most max: [{site, why, images, records, seq}]
 * (records: distinct records lost to that site; seq: the first of them).
 * An image judged by a user's checker names no record: its dropped lines
 * count, with records 0 and seq -1.
 */
void cause_tally_add(json_t *tally, json_t *verdict);
json_t *cause_tally_list(json_t *tally, size_t max);

#endif
