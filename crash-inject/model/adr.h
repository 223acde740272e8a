/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's side of the ADR model (crash-inject/model/adr-cache.c): start it
 * with a writer guest, answer its crash points, and turn each point into
 * crash images: everything kept (the eADR image), everything pending dropped
 * (strict ADR), and subsets of the pending lines between the two.
 */
#ifndef PMEM_ADR_H
#define PMEM_ADR_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "adr-state.h"
#include "../image.h"

/* Where the firmware puts the first NVDIMM of our q35 guests (checked
 * against QMP query-memory-devices at every boot). */
#define ADR_NVDIMM_BASE 0x100000000ULL
#define ADR_MAX_EXTENTS 64

/*
 * Images per crash point, at most: --subsets random ones, --structured of
 * each of the three structured families, --torn of each of the two torn
 * ones and --history of each of the two of earlier values (adr_subsets()).
 * A point's masks take adr_mask_width() times ADR_MAX_MASKS bytes, and each
 * of its images keeps one mask.
 */
#define ADR_MAX_RANDOM 64
#define ADR_MAX_STRUCTURED 32
#define ADR_MAX_TORN 32
#define ADR_MAX_HISTORY 32
#define ADR_MAX_MASKS (ADR_MAX_RANDOM + 3 * ADR_MAX_STRUCTURED + 2 * ADR_MAX_TORN + 2 * ADR_MAX_HISTORY)

/*
 * A mask holds a byte per pending line: which of its eight 8-byte words
 * the image takes as the CPU sees them (bit w: bytes 8w to 8w + 7), the
 * others as last durable. x86 promises failure atomicity for 8 bytes, not
 * for a line: 0 drops the line, ADR_KEEP keeps it whole, anything else
 * tears it. After those, a byte per earlier value kept of each line
 * (adr_line.version, line by line, in the order they were held): ADR_KEEP
 * lays that value over its line, whose own byte is then 0.
 */
#define ADR_KEEP 0xff

struct adr_params {
	unsigned int subsets;		/* random subsets when more than 4 lines are pending */
	unsigned int structured;	/* at most this many of each structured family then */
	unsigned int torn;		/* at most this many of each torn family (0: no torn lines) */
	unsigned int history;		/* at most this many of each family of earlier values (0: none) */
	uint64_t fence_max;		/* fence crash points at most */
	uint64_t fence_period;		/* one qualifying fence in this many, on average */
	int fence_any;			/* a fence qualifies when it wrote lines back, pending or not */
	unsigned int seed;
};

/* Where an acknowledged record lies in the region, as the ack marker said. */
struct adr_record {
	uint64_t seq, len;
	size_t n;
	struct {
		uint64_t rec_off, region_off, len;
	} ext[ADR_MAX_EXTENTS];
};

struct adr_model {
	char durable[PATH_MAX], state[PATH_MAX], sock_path[108], sock_dir[64];
	int listen_fd, fd;
	char buf[512];
	size_t len;
	uint64_t region_size;
	struct adr_record rec;		/* the record of the ack point being announced */
	int have_rec;
	char protocol_error[160];	/* the first malformed line, if any */
	int started;			/* the plugin said "start": the guest ran the start marker */
	int point_user;			/* the point announced is at a user-space fence */
};

struct adr_counters {
	uint64_t stores, nt_stores, flushes, fences, unresolved_flushes, last_unresolved_pc,
		 overflow, points, pending, versions_dropped;
};

/*
 * A crash point: the strict-ADR image as a file, and for every pending line
 * what it holds in the eADR image. Every other image of the point is the
 * file with some of those lines laid over it, written only when needed.
 */
struct adr_point {
	char kind[8];			/* ack, fence, time, kill */
	char adr[PATH_MAX];			/* the strict-ADR image */
	struct image_sum adr_sum;	/* its content hash */
	struct adr_line *lines;
	unsigned char (*current)[ADR_LINE];	/* each pending line as the CPU sees it */
	unsigned char (*old)[ADR_LINE];	/* and as last durable (the strict image holds it) */
	size_t nlines;
	struct adr_version *versions;	/* the lines' earlier values, line by line (adr_line.nversions each) */
	size_t nversions;		/* how many: masks are nlines + this */
	struct adr_counters counters;
	size_t acked;			/* acknowledgements that count in its images */
	size_t printed;			/* lines a black-box program had printed */
	uint64_t offered;		/* fence points: which the model offered (1, 2, ...) */
	struct adr_record rec;		/* ack points: the record being acknowledged */
	int has_rec;
};

enum adr_event { ADR_EV_NONE, ADR_EV_POINT, ADR_EV_CLOSED };

/*
 * Make the durable copy of media, the state file and the socket in dir;
 * write the -plugin argument for QEMU into arg. Returns 0 or -1 (said).
 */
int adr_model_start(struct adr_model *m, const char *dir, const char *media, uint64_t region_size,
		    const struct adr_params *p, const char *plugin_so, char *arg, size_t argsz);
/* The descriptor to poll: the listening socket, then the plugin's. */
int adr_model_poll_fd(const struct adr_model *m);
/* Take what the plugin said; ADR_EV_POINT puts the point's kind in kind. */
enum adr_event adr_model_read(struct adr_model *m, char *kind, size_t ksz);
/* Let the held vCPU go on. */
int adr_model_go(struct adr_model *m);
/* Ask for a crash point at the next store into the region. */
int adr_model_request_time(struct adr_model *m);
void adr_model_stop(struct adr_model *m);

/*
 * Snapshot a point (the vCPU held, or QEMU gone): the durable file ->
 * pt->adr, the pending lines, their current bytes from media, and the
 * counters. 0, or -1: with one line on stderr when the model's state is
 * unreadable, else silently with errno from the copy (ENOSPC: the disk is
 * full), which the caller reports.
 */
int adr_snapshot(const struct adr_model *m, const char *media, struct adr_point *pt);

/*
 * At an ack point (the vCPU held): how many of the lines still pending lie
 * in the record being acknowledged, rec; the first of them in *first (may
 * be NULL). A line pending there is one the program claims durable and
 * strict ADR would lose: checked at every ack, not only the sampled ones
 * that become images. -1 when the state cannot be read.
 */
int adr_pending_in_record(const struct adr_model *m, const struct adr_record *rec, struct adr_line *first);
void adr_point_free(struct adr_point *pt);

/*
 * The images of a point beyond its two boundaries, as masks (ADR_KEEP
 * above). All proper non-empty subsets of the lines when at most 4 are
 * pending (2^n - 2). Else, in this order:
 *  - prefixes in store order (ADR_SUB_PREFIX, index j): the j lines stored
 *    first kept, the rest dropped, 1 <= j < n, as a cache that wrote lines
 *    back in the order they were last stored would leave them;
 *  - drop-one (ADR_SUB_DROP, index r): every line kept but the one of rank
 *    r in store order;
 *  - keep-one (ADR_SUB_KEEP, index r): only that line kept;
 *  - p->subsets random ones (ADR_SUB_RANDOM), each line kept with
 *    probability 1/2, seeded by *seed.
 * Each structured family has at most p->structured members: all of them
 * when it has no more, else that many spread evenly over the store order,
 * both of its ends always among them. Then, whatever n, the torn lines:
 * for a word w of the line of rank r that the CPU and the durable copy
 * hold differently (bit w of changed[line]),
 *  - ADR_SUB_TORN_DROP: every line kept whole but that word, left old;
 *  - ADR_SUB_TORN_KEEP: every line dropped but that word, taken new;
 * at most p->torn of each, spread evenly over those (line, word) pairs in
 * store order (changed may be NULL when p->torn is 0). Then the earlier
 * values a line held between two of its stores (adr_line.version), the
 * value V of the line of rank r:
 *  - ADR_SUB_HIST_DROP: every line kept whole but that one, at value V;
 *  - ADR_SUB_HIST_KEEP: every line dropped but that one, at value V;
 * at most p->history of each, spread evenly over those (line, value) pairs
 * in store order. Returns how many masks (each adr_mask_width() bytes)
 * were written to masks and what, at most max: ADR_MAX_MASKS is enough for
 * any p the harness accepts.
 */
size_t adr_mask_width(const struct adr_line *lines, size_t nlines);
enum adr_family { ADR_SUB_ALL, ADR_SUB_PREFIX, ADR_SUB_DROP, ADR_SUB_KEEP, ADR_SUB_RANDOM,
		  ADR_SUB_TORN_DROP, ADR_SUB_TORN_KEEP, ADR_SUB_HIST_DROP, ADR_SUB_HIST_KEEP };

struct adr_subset {
	enum adr_family family;
	size_t index;		/* ALL, RANDOM: its number; PREFIX: lines kept; others: the rank */
	unsigned int word;	/* TORN_*: the word */
	unsigned int version;	/* HIST_*: which earlier value of the line */
};

size_t adr_subsets(const struct adr_line *lines, const unsigned char *changed, size_t nlines,
		   const struct adr_params *p, unsigned int *seed, unsigned char *masks, struct adr_subset *what,
		   size_t max);
/* Its image's variant name, unique in its point and saying the family:
 * "s03" (all subsets, or random), "pre05", "drop05", "keep05", and the
 * torn "drop05w3" and "keep05w3", and the earlier values "drop05v1" and
 * "keep05v1". */
void adr_subset_name(const struct adr_subset *s, char *buf, size_t sz);
/* Which words of pending line i the CPU and the durable copy hold differently. */
unsigned char adr_changed_words(const struct adr_point *pt, size_t i);
/*
 * The image that keeps the pending lines (or words) of mask (NULL: none), written over
 * dst, which exists (a checker's NVDIMM) or is created (create=1).
 */
int adr_write_image(const struct adr_point *pt, const unsigned char *mask, const char *dst, int create);
/* The content hash of that image (image_sum), without writing it. */
void adr_image_key(const struct adr_point *pt, const unsigned char *mask, char *hex, size_t hexsz);

/* What a dropped line's state says about the bug. */
const char *adr_line_why(const struct adr_line *l);
/* The earlier value of pending line i that mask lays over it, or NULL. */
const struct adr_version *adr_kept_version(const struct adr_point *pt, const unsigned char *mask, size_t i);
/* What a line taken at an earlier value says about the bug. */
extern const char adr_version_why[];

#endif
