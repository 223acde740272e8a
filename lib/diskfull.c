// SPDX-License-Identifier: GPL-2.0
/* A results disk with no room left: see diskfull.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#include "diskfull.h"

int disk_full_errno(int err)
{
	return err == ENOSPC || err == EDQUOT;
}

int disk_free(const char *dir, off_t *bytes, unsigned long long *inodes)
{
	struct statvfs v;

	if (statvfs(dir, &v) < 0)
		return -1;
	*bytes = (off_t)v.f_bavail * (off_t)v.f_frsize;
	if (inodes)
		*inodes = v.f_files ? (unsigned long long)v.f_favail : (unsigned long long)-1;
	return 0;
}

void disk_full_writing(struct run_error *e, const char *dir, const char *what, int err)
{
	run_error_set(e, err, "the disk under %s is full: writing %s failed: %s", dir, what, strerror(err));
}
