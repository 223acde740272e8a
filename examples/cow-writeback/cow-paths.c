// SPDX-License-Identifier: GPL-2.0
/*
 * cow-paths DIR: make the kernel copy shared DAX blocks by each path that
 * does it, one phase at a time, for cow-wb-trace.sh to watch.
 * cow-paths --cost DIR: the same copies between insn-per-fault markers,
 * for cost.sh (below, at cost()).
 *
 * In DIR (a DAX mount of a filesystem that can reflink: xfs -m reflink=1,
 * mount -o dax=always) it writes and fsyncs a 48 KiB file, clones it
 * (FICLONE), checks that the file is still DAX, then:
 *   fault    a MAP_SYNC store to pages 0-3 (dax_fault_iter());
 *   write    pwrite() of 64 bytes in the middle of pages 4-7, then fsync
 *            (dax_iomap_iter(): head and tail copied);
 *   unshare  FALLOC_FL_UNSHARE_RANGE of pages 8-11, then fsync
 *            (dax_unshare_iter()).
 * Each phase is announced in the trace buffer ("cowwb phase=NAME") through
 * trace_marker ($COWWB_MARKER if set, for a trace instance), and
 * "cowwb phase=end" closes the last one. Without tracefs it still runs
 * (the markers are then skipped).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "insn_marker.h"

#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif

#define PG 4096
#define PAGES 12

static int marker = -1;

static void phase(const char *name)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "cowwb phase=%s\n", name);

	if (marker >= 0 && write(marker, line, n) != n)
		fprintf(stderr, "cow-paths: trace_marker: %s\n", strerror(errno));
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "cow-paths: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

/*
 * --cost: what the copy costs in guest kernel instructions, for the
 * insn-per-fault plugin: each interval between the markers is one system
 * call on a freshly cloned 2 MiB file: FALLOC_FL_UNSHARE_RANGE of all of it
 * (one 2 MiB copy, as a PMD fault makes; with the fix one 2 MiB write-back),
 * a 2 MiB aligned pwrite() (copied whole, then overwritten), and a 64-byte
 * pwrite() mid-page (head and tail copied). Three rounds.
 */
static int cost(const char *dir)
{
	static unsigned char buf[2 << 20];
	char data[4096], clone[4096];

	snprintf(data, sizeof(data), "%s/cowwb-cost", dir);
	snprintf(clone, sizeof(clone), "%s/cowwb-cost-clone", dir);
	memset(buf, 0x5a, sizeof(buf));
	for (int round = 0; round < 3; round++) {
		for (int op = 0; op < 3; op++) {
			int fd = open(data, O_RDWR | O_CREAT | O_TRUNC, 0644), cfd;
			long r;

			if (fd < 0 || pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) || fsync(fd) < 0)
				return fail("write and fsync", data);
			cfd = open(clone, O_RDWR | O_CREAT | O_TRUNC, 0644);
			if (cfd < 0 || ioctl(cfd, FICLONE, fd) < 0 || fsync(cfd) < 0)
				return fail("FICLONE to", clone);
			insn_mark_start();
			if (op == 0)
				r = fallocate(fd, FALLOC_FL_UNSHARE_RANGE, 0, sizeof(buf));
			else if (op == 1)
				r = pwrite(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) ? 0 : -1;
			else
				r = pwrite(fd, buf, 64, PG / 2) == 64 ? 0 : -1;
			insn_mark_stop();
			if (r < 0)
				return fail("the measured call on", data);
			close(cfd);
			close(fd);
			unlink(clone);
			unlink(data);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static unsigned char buf[PAGES * PG];
	char data[4096], clone[4096];
	struct statx stx;
	unsigned char *map;
	int fd, cfd;

	if (argc == 3 && !strcmp(argv[1], "--cost"))
		return cost(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: cow-paths [--cost] DIR (a DAX mount of a filesystem with reflink)\n");
		return 2;
	}
	snprintf(data, sizeof(data), "%s/cowwb-data", argv[1]);
	snprintf(clone, sizeof(clone), "%s/cowwb-clone", argv[1]);
	if (getenv("COWWB_MARKER"))
		marker = open(getenv("COWWB_MARKER"), O_WRONLY);
	if (marker < 0)
		marker = open("/sys/kernel/tracing/trace_marker", O_WRONLY);
	if (marker < 0)
		marker = open("/sys/kernel/debug/tracing/trace_marker", O_WRONLY);

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	fd = open(data, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail("open", data);
	if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) || fsync(fd) < 0)
		return fail("write and fsync", data);
	cfd = open(clone, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (cfd < 0 || ioctl(cfd, FICLONE, fd) < 0)
		return fail("FICLONE (needs a filesystem with reflink) to", clone);
	if (fsync(cfd) < 0)
		return fail("fsync", clone);
	if (statx(AT_FDCWD, data, 0, STATX_BASIC_STATS, &stx) < 0)
		return fail("statx", data);
	if (!(stx.stx_attributes & STATX_ATTR_DAX)) {
		fprintf(stderr, "cow-paths: %s is not a DAX file after FICLONE (mount -o dax=always)\n", data);
		return 1;
	}

	phase("fault");
	map = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
	if (map == MAP_FAILED)
		return fail("mmap MAP_SYNC", data);
	for (int p = 0; p < 4; p++)
		map[p * PG] = 0xa5;	/* a write fault on a shared page */
	munmap(map, 4 * PG);

	phase("write");
	memset(buf, 0xa5, 64);
	for (int p = 4; p < 8; p++)
		if (pwrite(fd, buf, 64, (off_t)p * PG + PG / 2) != 64)
			return fail("pwrite", data);
	if (fsync(fd) < 0)
		return fail("fsync", data);

	phase("unshare");
	if (fallocate(fd, FALLOC_FL_UNSHARE_RANGE, 8 * PG, 4 * PG) < 0)
		return fail("fallocate(FALLOC_FL_UNSHARE_RANGE)", data);
	if (fsync(fd) < 0)
		return fail("fsync", data);
	phase("end");

	close(cfd);
	close(fd);
	unlink(clone);
	unlink(data);
	return 0;
}
