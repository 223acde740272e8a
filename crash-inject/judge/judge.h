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

struct check_phases;	/* check_phases.h */

struct ack_rec {
	uint64_t seq, off;
	size_t len;
};

/*
 * The checker guest's report on one image is one JSON document on one line
 * of its control port (workloads/checker.c writes it; the slot takes it,
 * crash-inject/judge/check_block.h), schema 1:
 *
 *   {"schema":1,"kind":"check","image":17,
 *    "mounted":true,
 *    "mount_error":"ext4 /dev/pmem0 on /mnt: Invalid argument",
 *    "files":[{"name":"crash/data","missing":false,"size":16384,
 *              "slots":[[0,0,"V",3],[1,1,"T",4],[2,3,"Z",0]],
 *              "error":"read slots 0-255: Input/output error"}],
 *    "user_check":0,
 *    "umount_error":"Device or resource busy",
 *    "flush_errors":["/dev/pmem0: Invalid argument"],
 *    "fsck":0,
 *    "phase":{"mount":12.5,"verify":3.1,"umount":2.0,"fsck":40.2}}
 *
 *   image         the item the host handed out ("image <i> ..."): the
 *                 document is refused for any other
 *   mounted       mount -o dax succeeded; mount_error says why not
 *   files         one per crash file the record verifier read (none when
 *                 the image did not mount or a user's checker ran): missing
 *                 when it does not exist, else its size and its slots as
 *                 runs [first, last, state, seq] of equal slots (state V,
 *                 Z, T or X, see workloads/record.h; seq the header's
 *                 sequence for V and T, else 0, at most 2^63 - 1); error
 *                 when it could not be read to the end
 *   user_check    the exit status of the user's CHECK program (only then)
 *   umount_error, flush_errors   what went wrong, for the log (not judged)
 *   fsck          the exit status of e2fsck -fn / xfs_repair -n
 *   phase         guest milliseconds per step (check_phases.h)
 *
 * Optional fields are absent rather than empty. A field the loader does
 * not know is ignored; a known one of the wrong type, or out of bounds,
 * refuses the document (but an absurd phase is only not believed).
 */
#define CHECK_DOC_SCHEMA 1

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
