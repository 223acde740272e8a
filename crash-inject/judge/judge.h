/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict on one crash image: the checker guest reports what it saw
 * (mount, the state of every record slot, fsck), the host compares it with
 * the acknowledgements it had logged before the image was taken.
 *
 *   intact      every acknowledged record is there, checksum right
 *   recovered   (a black-box program) its RECOVER exited 0, every PMDK pool
 *               passed pmempool check, and its CHECK, if any, exited 0
 *   recovery-failed  its RECOVER exited non-zero, was killed, or timed out
 *   pool-corrupt     pmempool check failed on a pool after the recovery
 *   lost        an acknowledged record is missing, zero or foreign (or the
 *               user's checker exited non-zero)
 *   torn        an acknowledged record's header is there, its checksum wrong
 *   fs-corrupt  mount or fsck failed (or the checker died on this image)
 *
 * The worst applies: fs-corrupt > recovery-failed > pool-corrupt > torn > lost
 * > intact (recovered).
 */
#ifndef PMEM_JUDGE_H
#define PMEM_JUDGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "../../proto/check_report.h"

struct check_phases;	/* check_phases.h */

struct ack_rec {
	uint64_t seq, off;
	size_t len;
};

/* Where the data file lay in an image (the report's data_map): guest
 * physical address of the device's first byte, and the file's extents. */
struct data_map {
	uint64_t dev_phys;
	size_t n;
	struct {
		uint64_t logical, physical, len;
	} ext[CHECK_MAX_EXTENTS];
};

struct check_report {
	int mounted;		/* mount succeeded */
	int fsck_status;	/* exit status of e2fsck -fn / xfs_repair -n */
	int nofile;		/* the data file is gone */
	long long size;		/* its size */
	char *slots;		/* per slot: V, Z, T or X */
	uint64_t *seqs;		/* per slot: header sequence (V, T) */
	size_t nslots;
	char checker_failure[256];	/* non-empty: the checker died here */
	int user_check;		/* exit status of the user's checker, -1: none */
	/* a black-box program's recovery: its exit status (-1: none ran) ... */
	int recover_status, recover_timed_out;
	char recover_output[1024], recover_assertion[320];
	/* ... and the PMDK pools pmempool checked after it: how many, the
	 * first that failed and its status (0: none failed) */
	int pools, pool_status;
	char pool_file[256];
	struct data_map *map;	/* NULL: the report had none */
};

/* More slots than this in one report is a lying or broken guest: 16 GiB of
 * 4 KiB records. */
#define JUDGE_MAX_SLOTS (1ULL << 22)

/*
 * Load the checker's document on image (text, len bytes, no newline) into r
 * and, when p is given, its phases (p->have_guest 0 when they are absent or
 * absurd). 0, or -1 with why (whylen bytes) saying what was refused; r is
 * then empty.
 */
int check_report_load(const char *text, size_t len, long image, struct check_report *r, struct check_phases *p,
		      char *why, size_t whylen);
/*
 * Whether doc, a JSON value read from a checker's port while image is
 * checked, is plainly no report on it: a schema-1 document of another kind
 * or on another image. A slot passes over those; anything else is taken
 * as the image's report, for check_report_load() to judge.
 */
int check_doc_is_other(const json_t *doc, long image);
void check_report_free(struct check_report *r);
/* Verdict JSON: {"verdict", "acked", "lost":[seq..], "torn":[..], ...}. */
json_t *judge(const struct check_report *r, const struct ack_rec *acks, size_t nacked);
/* Read an acks.log ("seq offset length" per line) into a malloc'd array;
 * -1 when it cannot be read or a line is not an ack. */
int ack_log_load(const char *path, struct ack_rec **acks, size_t *n);

#endif
