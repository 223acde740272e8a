/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict on one crash image: the checker guest reports what it saw
 * (mount, the state of every record slot, fsck), the host compares it with
 * the acknowledgements it had logged before the image was taken.
 *
 *   intact      every acknowledged record is there, checksum right
 *   lost        an acknowledged record is missing, zero or foreign (or the
 *               user's checker exited non-zero)
 *   torn        an acknowledged record's header is there, its checksum wrong
 *   fs-corrupt  mount or fsck failed (or the checker died on this image)
 *
 * The worst applies: fs-corrupt > torn > lost > intact.
 */
#ifndef PMEM_JUDGE_H
#define PMEM_JUDGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct ack_rec {
	uint64_t seq, off;
	size_t len;
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
};

/* More slots than this in one report is a lying or broken guest: 16 GiB of
 * 4 KiB records. */
#define JUDGE_MAX_SLOTS (1ULL << 22)

/* Parse the checker's block for one image (workloads/checker.c writes it);
 * -1 when it is malformed or out of bounds (the report is then freed). */
int check_report_parse(const char *text, struct check_report *r);
void check_report_free(struct check_report *r);
/* Verdict JSON: {"verdict", "acked", "lost":[seq..], "torn":[..], ...}. */
json_t *judge(const struct check_report *r, const struct ack_rec *acks, size_t nacked);
/* Read an acks.log ("seq offset length" per line) into a malloc'd array;
 * -1 when it cannot be read or a line is not an ack. */
int ack_log_load(const char *path, struct ack_rec **acks, size_t *n);

#endif
