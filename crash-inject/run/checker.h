/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checker guests: each judges crash images one after another, each with a
 * real mount (journal or log replay), the records read back, umount and
 * fsck (workloads/checker.c). The host writes an image into a guest's NVDIMM
 * while nothing is mounted, on that guest's "next".
 *
 * A pool keeps its guests up across many sets of images (every scenario and
 * filesystem of a crash run), since under TCG a boot costs as much as a dozen
 * images. Each guest lives in its own process (vm_run owns the process it
 * runs in), and the pool hands the next image to whichever guest asks first.
 * A guest that hangs or panics on an image gives that image the verdict
 * fs-corrupt, and a fresh guest takes its place.
 *
 * Used by crashtest (images it has just taken), crashcheck (kept images,
 * judged again) and crashbench (a fixed set, timed).
 */
#ifndef HARNESS_CHECKER_H
#define HARNESS_CHECKER_H

#include <jansson.h>
#include <poll.h>
#include <stddef.h>

#include "../judge/check_phases.h"
#include "../judge/judge.h"
#include "../../lib/error.h"

#define CHECK_MAX_PARALLEL 8

struct check_item {
	size_t acked;			/* judged against the first acked acks */
	size_t printed;			/* the program's first lines it printed go with it */
	int same_as;			/* >= 0: identical to that item, checked instead */
	json_t *verdict;		/* the checker's, or set beforehand: not sent */
	struct check_phases phases;	/* where its check's time went */
	struct data_map *map;		/* where its data file lay, if the checker said */
	int retried;			/* its guest was killed from outside, and it went again */
};

/* One set of images: one scenario on one filesystem. */
struct check_set {
	const char *fs;			/* a row of vm-images/filesystems */
	/* The acks logged before the images; the record verifier walks the
	 * data file in slots of their length (crash-inject/judge/layout.h). */
	const struct ack_rec *acks;
	size_t nacks;
	struct check_item *items;
	size_t nitems;
	/* The first nready items may be handed out: a set checked while its
	 * images are still being made grows (checker_pool_begin). */
	size_t nready;
	/* What a black-box program printed, in order: item i goes with its first
	 * items[i].printed lines (proto/print_line.h); NULL: nothing. */
	char *const *printed;
	/* Write item i's bytes over dst, a checker's NVDIMM backing file. */
	int (*write_image)(void *ctx, size_t i, const char *dst);
	void *ctx;
	/* Set by the pool when the disk under the checkers' NVDIMM files is
	 * full: no item is handed out after it, and the items not judged keep
	 * verdict NULL (the image is not to blame). */
	struct run_error disk_full;
};

struct checker_options {
	const char *build, *accel, *kernel;	/* kernel: a flavour under build/kernels */
	const char *golden;		/* any golden image: the NVDIMM the guests boot with */
	const char *dir;		/* checker-<guest>.<n>/ run directories go here */
	const char *check;		/* a user's static CHECK binary, or NULL */
	const char *recover;		/* a black-box program's RECOVER binary, or NULL */
	const char *recover_args;	/* its arguments, as sh words */
	int parallel;			/* guests at once (0 or 1: one) */
};

struct checker_pool;

/* Start the guests' processes; NULL when none could be started. */
struct checker_pool *checker_pool_start(const struct checker_options *o);
/* Judge every item of s without a verdict; returns when each has one or no
 * guest is left (the rest keep verdict NULL). */
void checker_pool_check(struct checker_pool *p, struct check_set *s);
/*
 * The same, for a set that grows while it is checked (a crash writer's
 * images, checked as they are taken): begin, then step after each poll of
 * the pool's descriptors and whenever the caller has made more items ready
 * (fds NULL), then end. end(rest 1) judges every ready item; end(rest 0)
 * hands out nothing more and waits for those out. end returns the seconds
 * during which some item was with a guest.
 */
void checker_pool_begin(struct checker_pool *p, struct check_set *s);
/* The pool's descriptors, at most max (CHECK_MAX_PARALLEL is enough): how many. */
int checker_pool_fds(const struct checker_pool *p, struct pollfd *fds, int max);
void checker_pool_step(struct checker_pool *p, const struct pollfd *fds, int n);
double checker_pool_end(struct checker_pool *p, int rest);
/* Wait until every guest has booted and asks for an image. */
void checker_pool_ready(struct checker_pool *p);
/* End the guests. guests: how many booted; boot_s: the longest time one
 * guest slot spent booting, which is what the boots cost the wall clock. */
void checker_pool_stop(struct checker_pool *p, int *guests, double *boot_s);

/* A pool for one set. */
void checker_run(const struct checker_options *o, struct check_set *s);

/* How many guests at once by default: PMEM_CHECKERS, else one per online
 * CPU, at most 4 (each is a 1 GiB guest). */
int checker_default_parallel(void);

#endif
