// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's copy on write under write(2). Sixteen 4 KiB records are
 * written, made durable (fsync) and acknowledged; the file is then cloned
 * (FICLONE), so every block is shared. The program then overwrites one
 * 64-byte line in the middle of each page with pwrite(), calls fsync and
 * acknowledges that line.
 *
 * A write(2) that covers only part of a shared block makes the filesystem
 * allocate a new block, and dax_iomap_iter() copies the head and the tail
 * of the old block around the written range into it
 * (dax_iomap_copy_around(), copy_mc_to_kernel(): cached stores). The
 * written range itself goes through dax_copy_from_iter() with
 * non-temporal stores. write(2) tags no mapping entry dirty, so the
 * program's fsync writes nothing back: under ADR the head and the tail
 * of each page, acknowledged before the clone, are lost in every image
 * taken after that fsync returned, with no race at all.
 * cow-write-check.c checks that the rest of every page is still the
 * record that was acknowledged.
 *
 * COW_UNSHARE (cow-unshare.c) unshares each page with
 * fallocate(FALLOC_FL_UNSHARE_RANGE) instead, which copies the whole
 * block in dax_unshare_iter() the same way.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ack.h"
#include "record.h"

#define BS 4096
#define RECORDS 16
#define LINE_OFF 2048		/* the line write(2) overwrites: mid-page */

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif

/* The copy is DAX's only on a DAX file: say so rather than pass vacuously. */
static int require_dax(const char *name)
{
	struct statx stx;

	if (statx(AT_FDCWD, name, 0, STATX_BASIC_STATS, &stx) < 0) {
		perror("cow: statx");
		return -1;
	}
	if (!(stx.stx_attributes_mask & STATX_ATTR_DAX) || !(stx.stx_attributes & STATX_ATTR_DAX)) {
		fprintf(stderr, "cow: %s is not a DAX file after FICLONE (mount -o dax=always on xfs -m reflink=1)\n",
			name);
		return -1;
	}
	return 0;
}

int main(void)
{
	static unsigned char buf[BS];
	int fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644), clone;

	for (size_t i = 0; i < RECORDS; i++) {
		record_fill(buf, BS, i, i * BS);
		if (fd < 0 || pwrite(fd, buf, BS, i * BS) != BS)
			return 1;
	}
	if (fsync(fd) < 0)
		return 1;
	for (size_t i = 0; i < RECORDS; i++)
		if (ack(i, i * BS, BS) < 0)
			return 1;
	/* Share every block with a clone. */
	clone = open("clone", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (clone < 0 || ioctl(clone, FICLONE, fd) < 0 || fsync(clone) < 0) {
		perror("cow: FICLONE (needs xfs with reflink=1)");
		return 1;
	}
	if (require_dax("data") < 0)
		return 1;
	memset(buf, 0xa5, 64);
	for (size_t i = 0; i < RECORDS; i++) {
#ifdef COW_UNSHARE
		/* The whole block is copied; nothing of it changes. */
		if (fallocate(fd, FALLOC_FL_UNSHARE_RANGE, i * BS, BS) < 0) {
			perror("cow-unshare: fallocate(FALLOC_FL_UNSHARE_RANGE)");
			return 1;
		}
#else
		/* The head [0, LINE_OFF) and the tail [LINE_OFF + 64, BS) are copied. */
		if (pwrite(fd, buf, 64, i * BS + LINE_OFF) != 64)
			return 1;
#endif
		if (fsync(fd) < 0)
			return 1;
		/* fsync returned: the page, old and new, is promised durable. */
		if (ack(RECORDS + i, i * BS, BS) < 0)
			return 1;
	}
	return 0;
}
