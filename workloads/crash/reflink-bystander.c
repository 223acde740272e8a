// SPDX-License-Identifier: GPL-2.0
/*
 * The bystander that never used the flag (Chinner, 2016). Two processes
 * on an xfs made with reflink=1:
 *
 *  - the owner maps its file "src" in the mode $PMEM_MODE and stores 16
 *    records into it (the blocks were allocated, written and fsynced
 *    before, so it owes the file system nothing). It has not written the
 *    stores back yet: an aware program may keep them in the CPU cache until
 *    it acknowledges them, and it acknowledges nothing here. It waits for
 *    the bystander, and exits without writing them back;
 *  - the bystander, a second process that never maps anything, shares the
 *    owner's blocks into its own file "data" (FICLONE here; the -dedupe
 *    and -copy variants use FIDEDUPERANGE and copy_file_range()), fsyncs
 *    "data" and acknowledges its 16 records: it did what POSIX asks.
 *
 * Before blocks are shared, __generic_remap_file_range_prep() writes back
 * the source's DIRTY-tagged DAX entries (filemap_write_and_wait_range()).
 * A MAP_SHARED or MAP_SYNC owner's stores are tagged, so they are flushed
 * before the remap commits; a MAP_PMEM_AWARE owner's are not, so "data"'s
 * fsync commits a remap to blocks whose lines are still in the CPU cache.
 * Under ADR a power loss then leaves "data" reading what the blocks held
 * before: the bystander loses records it made durable by the book.
 *
 * With REWRITE (reflink-bystander-rewrite.c) the owner, once the
 * bystander acknowledged, stores a new version of every record and writes
 * it back with clwb + sfence, as an aware program does. We expected that
 * store to land in the block "data" now shares, since the remap's
 * write-back is what write-protects tagged entries; it does not: xfs
 * unmaps every mapping of both files before it remaps
 * (xfs_ilock2_io_mmap() -> xfs_break_dax_layouts() ->
 * dax_layout_busy_page()), so the owner's store refaults and copies the
 * block in every mode. The variant stays as the check that it does.
 *
 * reflink-bystander-check.c checks the acknowledged records of "data".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ack.h"
#include "cpu_flush.h"
#include "pmem_map.h"
#include "record.h"

#define BS 4096
#define RECORDS 16
#define LEN ((size_t)BS * RECORDS)

#ifndef REMAP
#define REMAP remap_clone
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

/* cp --reflink=always does this ioctl. */
static __attribute__((unused)) int remap_clone(int src, int dst)
{
	return ioctl(dst, FICLONE, src);
}

/* xfs answers copy_file_range() with a remap when it can (vfs_copy_file_range()). */
static __attribute__((unused)) int remap_copy(int src, int dst)
{
	loff_t in = 0, out = 0;
	ssize_t n = copy_file_range(src, &in, dst, &out, LEN, 0);

	if (n != (ssize_t)LEN) {
		if (n >= 0)
			fprintf(stderr, "reflink-bystander: copy_file_range copied %zd of %zu bytes\n", n, LEN);
		return -1;
	}
	return 0;
}

/*
 * A deduplicating bystander (duperemove, a backup tool): "data" already
 * holds the same records, written and fsynced by the bystander itself;
 * FIDEDUPERANGE compares the two through the CPU, finds them equal, and
 * points "data" at the owner's blocks.
 */
static __attribute__((unused)) int remap_dedupe(int src, int dst)
{
	static unsigned char buf[BS];
	struct file_dedupe_range *r = calloc(1, sizeof(*r) + sizeof(r->info[0]));

	for (size_t i = 0; i < RECORDS; i++) {
		record_fill(buf, BS, i, i * BS);
		if (pwrite(dst, buf, BS, i * BS) != BS)
			return -1;
	}
	if (!r || fsync(dst) < 0)
		return -1;
	r->src_offset = 0;
	r->src_length = LEN;
	r->dest_count = 1;
	r->info[0].dest_fd = dst;
	r->info[0].dest_offset = 0;
	if (ioctl(src, FIDEDUPERANGE, r) < 0)
		return -1;
	if (r->info[0].status != FILE_DEDUPE_RANGE_SAME || r->info[0].bytes_deduped != LEN) {
		fprintf(stderr, "reflink-bystander: FIDEDUPERANGE status %d, %llu of %zu bytes\n",
			r->info[0].status, (unsigned long long)r->info[0].bytes_deduped, LEN);
		free(r);
		return -1;
	}
	free(r);
	return 0;
}

/* The second process: shares the owner's blocks, fsyncs, acknowledges. */
static int bystander(void)
{
	int src = open("src", O_RDONLY), dst = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	unsigned char *view;

	if (src < 0 || dst < 0) {
		perror("reflink-bystander: open");
		return 1;
	}
	if (REMAP(src, dst) < 0) {
		perror("reflink-bystander: " STR(REMAP) " (needs xfs with reflink=1)");
		return 1;
	}
	if (fsync(dst) < 0) {
		perror("reflink-bystander: fsync");
		return 1;
	}
	/*
	 * A read-only view of "data" names each record's lines to the ADR
	 * model (ack_at), so that a lost record is traced to the store that
	 * lost it. It is made after the fsync, and read faults write nothing.
	 */
	view = mmap(NULL, LEN, PROT_READ, MAP_SHARED, dst, 0);
	for (size_t i = 0; i < RECORDS; i++) {
		const unsigned char *rec = view == MAP_FAILED ? NULL : view + i * BS;

		if (rec)
			(void)*(volatile const unsigned char *)rec;
		if (ack_at(i, i * BS, BS, rec) < 0)
			return 1;
	}
	return 0;
}

int main(void)
{
	const char *name = getenv("PMEM_MODE") ? getenv("PMEM_MODE") : "aware";
	const struct map_mode *mode = map_mode_find(name);
	static unsigned char buf[BS];
	int fd = open("src", O_RDWR | O_CREAT | O_TRUNC, 0644), go[2], status;
	unsigned char *map;
	pid_t pid;

	if (!mode) {
		fprintf(stderr, "reflink-bystander: unknown mode '%s'\n", name);
		return 1;
	}
	/* The owner's blocks: allocated, written and committed before it maps. */
	for (size_t i = 0; i < RECORDS; i++)
		if (fd < 0 || pwrite(fd, buf, BS, i * BS) != BS)
			return 1;
	if (fsync(fd) < 0 || pipe(go) < 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		char c;

		close(go[1]);
		close(fd);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(bystander());
	}
	close(go[0]);
	map = map_mode_map(mode, fd, LEN);
	if (map == MAP_FAILED) {
		perror("reflink-bystander: mmap");
		return 1;
	}
	/* The owner's stores, not written back yet. */
	for (size_t i = 0; i < RECORDS; i++) {
		record_fill(buf, BS, i, i * BS);
		memcpy(map + i * BS, buf, BS);
	}
	if (write(go[1], "g", 1) != 1 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "reflink-bystander: the bystander failed\n");
		return 1;
	}
#ifdef REWRITE
	/* The owner's next version, written back and fenced by the owner. */
	for (size_t i = 0; i < RECORDS; i++) {
		record_fill(buf, BS, RECORDS + i, i * BS);
		memcpy(map + i * BS, buf, BS);
		cpu_flush(map + i * BS, BS);
	}
#endif
	return 0;
}
