/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ADR cache model's state, shared between the TCG plugin that keeps it
 * (crash-inject/model/adr-cache.c) and the harness that builds crash images
 * from it (crash-inject/model/adr.c). One file, mapped by both:
 *
 *   struct adr_state, then `capacity` struct adr_line slots, the first
 *   `npending` of which are the lines stored to but not yet durable, then
 *   `capacity` times ADR_VERSIONS struct adr_version: slot s's earlier
 *   values are the first lines[s].nversions of versions s * ADR_VERSIONS
 *   on (adr_state_versions()). Apart, so that a line costs the host 64
 *   bytes a point unless it has earlier values.
 *
 * Beside it the plugin keeps the *durable* file: a copy of the NVDIMM
 * backing file in which every line holds what was last made durable. The
 * invariant the plugin maintains is that a line that is not pending holds
 * the same bytes in the durable file as in the backing file, so the durable
 * file is itself the strict-ADR crash image, and any other image is it plus
 * some pending lines copied from the backing file.
 *
 * The host reads this only while the writing vCPU is held (a crash point
 * the plugin announced and waits on) or after QEMU is gone.
 */
#ifndef PMEM_ADR_STATE_H
#define PMEM_ADR_STATE_H

#include <stdint.h>

#define ADR_STATE_MAGIC "PMEMADR1"
#define ADR_STATE_VERSION 5
#define ADR_LINE 64ULL
/*
 * Earlier values of a pending line kept, at most: a line stored to, then
 * stored to again with other bytes before it was durable, held a value a
 * cache could have written back in between (adr_line.version).
 */
#define ADR_VERSIONS 4

/* A value the line held between two of its stores since it was last durable. */
struct adr_version {
	uint64_t pc;		/* the last store to the bytes the next store changed */
	uint64_t caller;	/* and its caller, as adr_line.caller */
	uint64_t at_store;	/* the region's store count when it was overwritten */
	uint8_t bytes[ADR_LINE];	/* the whole line just before that store */
};

enum adr_line_flags {
	ADR_LINE_USER = 1,	/* the store pc names was user code */
	ADR_LINE_FLUSHING = 2,	/* written back (clwb/clflushopt) or NT-stored, not fenced */
	ADR_LINE_NT = 4,	/* the last store was non-temporal */
	ADR_LINE_NT_EVICTED = 8,	/* a non-temporal store left cached bytes of the line
				 * behind, never written back: pc names their store */
};

struct adr_line {
	uint64_t off;		/* byte offset of the line in the NVDIMM region */
	uint64_t pc;		/* guest PC of the last store to it (NT_EVICTED: of the
				 * cached store before the non-temporal ones) */
	uint64_t caller;	/* user stores: the return address at the stack top (the
				 * caller of a leaf such as memcpy), else 0 */
	uint64_t first_store;	/* the region's store count (adr_state.stores) at the
				 * line's first store since it was last durable */
	uint64_t last_store;	/* and at its last: the pending lines' store order */
	uint32_t stores;	/* stores since it was last durable */
	uint32_t flags;		/* enum adr_line_flags */
	uint32_t nversions;	/* earlier values kept (adr_state_versions()), in the order held */
	uint32_t versions_seen;	/* and how many it held: the first ADR_VERSIONS are kept */
};

struct adr_state {
	char magic[8];
	uint32_t version;
	uint32_t line_size;
	uint64_t region_size;
	uint64_t capacity;		/* slots in lines[] */
	uint64_t npending;
	/* Counters since boot. */
	uint64_t stores;		/* stores into the region */
	uint64_t nt_stores;
	uint64_t flushes;		/* clwb, clflushopt, clflush into the region */
	uint64_t fences;		/* fences that made at least one line durable */
	uint64_t unresolved_flushes;	/* flushes (or stores past a page boundary)
					 * whose physical line is unknown */
	uint64_t last_unresolved_pc;
	uint64_t overflow;		/* stores to lines that did not fit: the model is incomplete */
	uint64_t points;		/* crash points announced */
	uint64_t versions_dropped;	/* earlier values past ADR_VERSIONS of a line, not kept */
	struct adr_line lines[];
};

/* The state file's size for capacity lines. */
static inline uint64_t adr_state_bytes(uint64_t capacity)
{
	return sizeof(struct adr_state) + capacity * (sizeof(struct adr_line) + ADR_VERSIONS * sizeof(struct adr_version));
}

/* Where slot s's earlier values start, from the state's start. */
static inline uint64_t adr_state_versions(uint64_t capacity, uint64_t s)
{
	return sizeof(struct adr_state) + capacity * sizeof(struct adr_line) + s * ADR_VERSIONS * sizeof(struct adr_version);
}

#endif
