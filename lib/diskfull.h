/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A results disk with no room left. It is no fault of the kernel or the
 * program under test, so bench and crashtest stop on it in one line that
 * names what could not be written; these tell a full disk from other
 * failures and give that line its common part.
 */
#ifndef HARNESS_DISKFULL_H
#define HARNESS_DISKFULL_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"

/* A planned unit's exit status when the results disk is full (collect and
 * schedule.sh tell it from a failure). */
#define UNIT_EXIT_DISK_FULL 3

/* Whether err (an errno value) says the disk is full: ENOSPC or EDQUOT. */
int disk_full_errno(int err);

/*
 * The bytes and inodes free under dir for a user without privilege; inodes
 * (may be NULL) is (unsigned long long)-1 where the filesystem has no
 * inode limit. 0, or -1 when dir cannot be looked at.
 */
int disk_free(const char *dir, off_t *bytes, unsigned long long *inodes);

/* e: err, and "the disk under DIR is full: writing WHAT failed: <strerror(err)>" */
void disk_full_writing(struct run_error *e, const char *dir, const char *what, int err);

#endif
