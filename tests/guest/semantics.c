// SPDX-License-Identifier: GPL-2.0
/*
 * MAP_PMEM_AWARE semantics, run inside a guest on a DAX filesystem.
 *
 *   semantics [--aware] [--rdfix] [--pmd-expected] --dir DIR [--nondax DIR] [--tmpfs DIR]
 *             [--async-dir DIR]
 *   semantics write-pattern FILE SEED PAGES    (aware mapping + clwb)
 *   semantics verify-pattern FILE SEED PAGES   (legacy mapping and read(2))
 *   semantics set-dax-flag DIR                 (FS_XFLAG_DAX for dax=inode)
 *   semantics probe DIR                        (has the kernel MAP_PMEM_AWARE?)
 *
 * --aware says the kernel carries the port, --rdfix that it carries the
 * 6.1 read-fault fix (newer kernels need none: see read_faults_tracked()).
 * What each mode must do is the table in README.md:
 *
 *   mode        mmap flags                     fsync/msync writes back
 *   shared      MAP_SHARED                     every written page
 *   sync        MAP_SHARED_VALIDATE|MAP_SYNC   every written page
 *   aware       MAP_SHARED_VALIDATE|AWARE      nothing
 *   sync+aware  MAP_SHARED_VALIDATE|SYNC|AWARE nothing
 *
 * Write-backs are counted with the fs_dax:dax_writeback_one tracepoint,
 * filtered to the test file's inode.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <linux/fs.h>
#include <linux/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu_flush.h"
#include "pmem_map.h"
#include "tap.h"
#include "tracefs.h"

#define PAGE 4096
#define NPAGES 16		/* 64 KiB: too small for a PMD fault */
#define TIMEOUT 120

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif

static struct {
	int aware, rdfix;
	int pmd_expected;	/* the filesystem aligns 2 MiB allocations (xfs here) */
	const char *dir, *nondax, *tmpfs;
	const char *async_dir;	/* DAX on a device that is not synchronous (virtio-pmem) */
} cfg;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		tap_diag(__VA_ARGS__);					\
		return TAP_FAIL;					\
	}								\
} while (0)

/* dax_writeback_one events for inode ino since tracefs_start(); -1 on error. */
static long trace_count_writebacks(unsigned long ino)
{
	struct dax_counts c;

	return tracefs_count(ino, &c) < 0 ? -1 : (long)c.n[EV_WRITEBACK_ONE];
}

/* ---- files ------------------------------------------------------------- */

enum layout { HOLE, PREALLOC };
static const char *const layout_name[] = { "hole", "prealloc" };

/* A fresh file: sparse (allocating faults) or written and synced. */
static int make_file(const char *dir, const char *name, enum layout layout, size_t len)
{
	char path[512], page[PAGE];
	size_t off;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		tap_diag("open %s: %s", path, strerror(errno));
		return -1;
	}
	if (layout == HOLE) {
		if (ftruncate(fd, len) < 0)
			goto err;
	} else {
		memset(page, 0x5a, sizeof(page));
		for (off = 0; off < len; off += PAGE)
			if (pwrite(fd, page, PAGE, off) != PAGE)
				goto err;
	}
	if (fsync(fd) < 0)
		goto err;
	return fd;
err:
	tap_diag("preparing %s: %s", path, strerror(errno));
	close(fd);
	return -1;
}

static int file_is_dax(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) < 0)
		return -1;
	return !!(stx.stx_attributes & STATX_ATTR_DAX);
}

static unsigned long file_ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) < 0 ? 0 : st.st_ino;
}

/* ---- mmap flag validation ---------------------------------------------- */

struct flag_case {
	const char *name;
	const char *dir;	/* which directory the file is in */
	int flags;
	int expect_errno;	/* 0: mapping succeeds */
	const char *want_vmflags;	/* must be present */
	const char *unwanted_vmflag;	/* must be absent */
};

static int test_flags(void *arg)
{
	const struct flag_case *c = arg;
	char vmflags[256];
	void *p;
	int fd;

	fd = make_file(c->dir, "flags", PREALLOC, NPAGES * PAGE);
	CHECK(fd >= 0, "cannot create a file in %s", c->dir);
	p = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE, c->flags, fd, 0);
	if (c->expect_errno) {
		CHECK(p == MAP_FAILED, "mmap(%#x) succeeded, expected %s", c->flags,
		      strerror(c->expect_errno));
		CHECK(errno == c->expect_errno, "mmap(%#x) failed with %s, expected %s",
		      c->flags, strerror(errno), strerror(c->expect_errno));
		return TAP_PASS;
	}
	CHECK(p != MAP_FAILED, "mmap(%#x): %s", c->flags, strerror(errno));
	CHECK(smaps_vmflags(p, vmflags, sizeof(vmflags)) == 0, "no smaps entry for the mapping");
	tap_diag("%s VmFlags:%s", c->name, vmflags);
	if (c->want_vmflags) {
		char want[64], *tok, *save;

		snprintf(want, sizeof(want), "%s", c->want_vmflags);
		for (tok = strtok_r(want, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			CHECK(vmflags_has(vmflags, tok), "VmFlags lacks '%s'", tok);
	}
	if (c->unwanted_vmflag)
		CHECK(!vmflags_has(vmflags, c->unwanted_vmflag), "VmFlags has '%s'",
		      c->unwanted_vmflag);
	return TAP_PASS;
}

/* ---- dirty tracking ---------------------------------------------------- */

struct dirty_case {
	const struct map_mode *mode;
	enum layout layout;
	int use_msync;
	int reads_only;		/* read faults instead of writes */
	long expect;		/* dax_writeback_one events */
};

static int test_dirty(void *arg)
{
	const struct dirty_case *c = arg;
	volatile unsigned char sink = 0;
	unsigned char *p;
	long events;
	int fd, i;

	fd = make_file(cfg.dir, "dirty", c->layout, NPAGES * PAGE);
	CHECK(fd >= 0, "cannot create the test file");
	CHECK(file_is_dax(fd) == 1, "test file is not DAX: is the filesystem mounted -o dax?");
	p = map_mode_map(c->mode, fd, NPAGES * PAGE);
	CHECK(p != MAP_FAILED, "mmap %s: %s", c->mode->name, strerror(errno));
	CHECK(tracefs_start() == 0, "cannot enable the fs_dax tracepoints");
	for (i = 0; i < NPAGES; i++) {
		if (c->reads_only)
			sink += p[i * PAGE];
		else
			p[i * PAGE + 1] = (unsigned char)i;
	}
	if (c->mode->aware && !c->reads_only)
		cpu_flush(p, NPAGES * PAGE);
	if (c->use_msync)
		CHECK(msync(p, NPAGES * PAGE, MS_SYNC) == 0, "msync: %s", strerror(errno));
	else
		CHECK(fsync(fd) == 0, "fsync: %s", strerror(errno));
	events = trace_count_writebacks(file_ino(fd));
	CHECK(events >= 0, "cannot read the trace buffer");
	tap_diag("%s %s %s %s: %ld dax_writeback_one events for %d pages (expected %ld)",
		 c->mode->name, layout_name[c->layout], c->reads_only ? "reads" : "writes",
		 c->use_msync ? "msync" : "fsync", events, NPAGES, c->expect);
	CHECK(events == c->expect, "%ld write-backs, expected %ld", events, c->expect);
	(void)sink;
	return TAP_PASS;
}

/* ---- mixed access ------------------------------------------------------ */

static unsigned char pattern_byte(unsigned int seed, size_t off)
{
	return (unsigned char)(seed * 31 + off * 7 + (off >> 12) * 13);
}

static int write_pattern(const char *path, unsigned int seed, int pages)
{
	const struct map_mode *aware = map_mode_find("aware");
	unsigned char *p;
	size_t off, len = (size_t)pages * PAGE;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	CHECK(ftruncate(fd, len) == 0, "ftruncate: %s", strerror(errno));
	p = map_mode_map(aware, fd, len);
	CHECK(p != MAP_FAILED, "mmap aware: %s", strerror(errno));
	for (off = 0; off < len; off++)
		p[off] = pattern_byte(seed, off);
	cpu_flush(p, len);
	CHECK(munmap(p, len) == 0, "munmap: %s", strerror(errno));
	close(fd);
	return TAP_PASS;
}

static int verify_pattern(const char *path, unsigned int seed, int pages)
{
	size_t off, len = (size_t)pages * PAGE;
	unsigned char *p, *buf = malloc(len);
	int fd = open(path, O_RDONLY);

	CHECK(buf && fd >= 0, "open %s: %s", path, strerror(errno));
	/* Through a legacy shared mapping... */
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "mmap shared: %s", strerror(errno));
	for (off = 0; off < len; off++)
		CHECK(p[off] == pattern_byte(seed, off),
		      "legacy mapping: byte %zu is %#x, expected %#x", off, p[off],
		      pattern_byte(seed, off));
	munmap(p, len);
	/* ...and through read(2). */
	CHECK(pread(fd, buf, len, 0) == (ssize_t)len, "pread: %s", strerror(errno));
	for (off = 0; off < len; off++)
		CHECK(buf[off] == pattern_byte(seed, off), "read(2): byte %zu is %#x, expected %#x",
		      off, buf[off], pattern_byte(seed, off));
	free(buf);
	close(fd);
	return TAP_PASS;
}

static int test_mixed(void *arg)
{
	char path[512];

	(void)arg;
	snprintf(path, sizeof(path), "%s/mixed", cfg.dir);
	if (write_pattern(path, 7, NPAGES) != TAP_PASS)
		return TAP_FAIL;
	return verify_pattern(path, 7, NPAGES);
}

/* ---- a mapping's life: fork, mremap, mprotect, private, remap -------- */

/* A prealloc'd test file mapped aware; *fdp gets the fd. */
static unsigned char *map_aware(const char *name, size_t len, int *fdp)
{
	unsigned char *p;

	*fdp = make_file(cfg.dir, name, PREALLOC, len);
	if (*fdp < 0)
		return MAP_FAILED;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_PMEM_AWARE,
		 *fdp, 0);
	if (p == MAP_FAILED)
		tap_diag("mmap aware: %s", strerror(errno));
	return p;
}

/* The same file mapped twice, aware and legacy: the mixed-access cases. */
static int map_aware_and_legacy(const char *name, unsigned char **aware, unsigned char **legacy)
{
	int fd;

	*aware = map_aware(name, NPAGES * PAGE, &fd);
	if (*aware == MAP_FAILED)
		return -1;
	*legacy = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*legacy == MAP_FAILED) {
		tap_diag("legacy mmap: %s", strerror(errno));
		return -1;
	}
	return fd;
}

static int has_aware_flag(const void *addr)
{
	char vmflags[256];

	return smaps_vmflags(addr, vmflags, sizeof(vmflags)) == 0 &&
	       vmflags_has(vmflags, PMEM_AWARE_VMFLAG);
}

/* The child of a fork writes through the inherited mapping: still aware. */
static int test_fork(void *arg)
{
	unsigned char *p;
	long events;
	int fd, status, i;
	pid_t pid;

	(void)arg;
	p = map_aware("fork", NPAGES * PAGE, &fd);
	CHECK(p != MAP_FAILED, "cannot map the test file");
	CHECK(tracefs_start() == 0, "cannot enable the fs_dax tracepoints");
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		for (i = 0; i < NPAGES; i++)
			p[i * PAGE + 1] = (unsigned char)i;
		cpu_flush(p, NPAGES * PAGE);
		_exit(has_aware_flag(p) ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status), "the child died");
	CHECK(WEXITSTATUS(status) == 0, "the child's mapping lacks '%s'", PMEM_AWARE_VMFLAG);
	CHECK(fsync(fd) == 0, "fsync: %s", strerror(errno));
	events = trace_count_writebacks(file_ino(fd));
	tap_diag("fork: the child's %d aware writes, then fsync: %ld write-backs", NPAGES, events);
	CHECK(events == 0, "%ld write-backs of the child's aware writes, expected 0", events);
	return TAP_PASS;
}

/* mremap grow and move, mprotect of a middle range: every piece keeps the
 * flag, and a legacy mapping right after an aware one (file offsets
 * contiguous, so only the flag tells them apart) stays a vma of its own. */
static int test_vma_ops(void *arg)
{
	size_t len = NPAGES * PAGE;
	unsigned char *p, *q, *area, *legacy;
	int fd;

	(void)arg;
	p = map_aware("vma", 2 * len, &fd);
	CHECK(p != MAP_FAILED, "cannot map the test file");
	CHECK(ftruncate(fd, 3 * len) == 0, "ftruncate: %s", strerror(errno));
	CHECK(munmap(p + len, len) == 0, "munmap: %s", strerror(errno));
	q = mremap(p, len, 2 * len, MREMAP_MAYMOVE);
	CHECK(q != MAP_FAILED, "mremap grow: %s", strerror(errno));
	CHECK(has_aware_flag(q) && has_aware_flag(q + len), "grown mapping lost '%s'",
	      PMEM_AWARE_VMFLAG);
	/* Move it into a reserved area, which also has room for the neighbour. */
	area = mmap(NULL, 3 * len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(area != MAP_FAILED, "reserving an address range: %s", strerror(errno));
	q = mremap(q, 2 * len, 2 * len, MREMAP_MAYMOVE | MREMAP_FIXED, area);
	CHECK(q == area, "mremap move: %s", strerror(errno));
	CHECK(has_aware_flag(q), "moved mapping lost '%s'", PMEM_AWARE_VMFLAG);
	CHECK(mprotect(q + PAGE, PAGE, PROT_READ) == 0, "mprotect: %s", strerror(errno));
	CHECK(has_aware_flag(q) && has_aware_flag(q + PAGE) && has_aware_flag(q + 2 * PAGE),
	      "a piece of the split mapping lost '%s'", PMEM_AWARE_VMFLAG);
	CHECK(mprotect(q + PAGE, PAGE, PROT_READ | PROT_WRITE) == 0, "mprotect: %s",
	      strerror(errno));
	q[PAGE] = 1;
	CHECK(has_aware_flag(q + PAGE), "the RO->RW page lost '%s'", PMEM_AWARE_VMFLAG);
	legacy = mmap(area + 2 * len, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		      2 * len);
	CHECK(legacy == area + 2 * len, "legacy mmap: %s", strerror(errno));
	CHECK(has_aware_flag(q + 2 * len - 1) && !has_aware_flag(legacy),
	      "the aware mapping and its legacy neighbour merged");
	return TAP_PASS;
}

/* MAP_PRIVATE ignores the flag: a write goes to an anonymous copy. */
static int test_private(void *arg)
{
	unsigned char *p, byte;
	int fd;

	(void)arg;
	fd = make_file(cfg.dir, "private", PREALLOC, NPAGES * PAGE);
	CHECK(fd >= 0, "cannot create the test file");
	p = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_PMEM_AWARE, fd, 0);
	CHECK(p != MAP_FAILED, "mmap private: %s", strerror(errno));
	p[0] = 0x11;
	CHECK(!has_aware_flag(p), "private mapping has '%s'", PMEM_AWARE_VMFLAG);
	CHECK(pread(fd, &byte, 1, 0) == 1, "pread: %s", strerror(errno));
	CHECK(byte == 0x5a, "the file changed through a private mapping (%#x)", byte);
	return TAP_PASS;
}

/* remap_file_pages() re-creates the range with plain MAP_SHARED, so the
 * port drops the flag there: documented, and tested so that it stays so. */
static int test_remap_file_pages(void *arg)
{
	unsigned char *p;
	int fd;

	(void)arg;
	p = map_aware("remap", NPAGES * PAGE, &fd);
	CHECK(p != MAP_FAILED, "cannot map the test file");
	CHECK(remap_file_pages(p, PAGE, 0, 1, 0) == 0, "remap_file_pages: %s", strerror(errno));
	CHECK(!has_aware_flag(p), "the remapped page kept '%s'", PMEM_AWARE_VMFLAG);
	CHECK(has_aware_flag(p + PAGE), "the rest of the mapping lost '%s'", PMEM_AWARE_VMFLAG);
	return TAP_PASS;
}

static sigjmp_buf sigbus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(sigbus_jmp, 1);
}

/* Whether reading *p raises SIGBUS; *value gets the byte otherwise. */
static int read_faults_sigbus(const volatile unsigned char *p, unsigned char *value)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	int bus = 0;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(sigbus_jmp, 1))
		bus = 1;
	else
		*value = *p;
	sigaction(SIGBUS, &old, NULL);
	return bus;
}

/* Hole punch and truncate under an aware mapping: the punched range reads
 * back as zeros (no stale data), the truncated tail raises SIGBUS. */
static int test_truncate_punch(void *arg)
{
	unsigned char *p, v = 0xff;
	int fd, i;

	(void)arg;
	p = map_aware("punch", NPAGES * PAGE, &fd);
	CHECK(p != MAP_FAILED, "cannot map the test file");
	for (i = 0; i < NPAGES; i++)
		memset(p + i * PAGE, 0xa0 + i, PAGE);
	cpu_flush(p, NPAGES * PAGE);
	CHECK(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2 * PAGE, 2 * PAGE) == 0,
	      "punch: %s", strerror(errno));
	for (i = 2; i < 4; i++)
		CHECK(p[i * PAGE] == 0 && p[i * PAGE + PAGE - 1] == 0,
		      "punched page %d reads %#x: stale data", i, p[i * PAGE]);
	CHECK(p[4 * PAGE] == 0xa4 && p[PAGE] == 0xa1, "pages next to the hole changed");
	p[2 * PAGE + 1] = 0x55;		/* refills the hole */
	CHECK(p[2 * PAGE + 1] == 0x55, "a store into the punched range was lost");
	CHECK(ftruncate(fd, NPAGES / 2 * PAGE) == 0, "ftruncate: %s", strerror(errno));
	CHECK(read_faults_sigbus(p + (NPAGES / 2 + 1) * PAGE, &v),
	      "reading past the truncated end gave %#x, expected SIGBUS", v);
	CHECK(!read_faults_sigbus(p + PAGE, &v) && v == 0xa1, "the kept head changed");
	return TAP_PASS;
}

/*
 * A legacy msync of the same file must not write-protect the aware
 * mapping (series v2, patch 5): the aware stores after it take no fault.
 * Series v1 write-protected it, and every aware store refaulted through
 * the filesystem's page_mkwrite.
 */
static int test_legacy_sync_refaults(void *arg)
{
	unsigned char *aware, *legacy;
	struct dax_counts c;
	int fd, i;

	(void)arg;
	fd = map_aware_and_legacy("refault", &aware, &legacy);
	CHECK(fd >= 0, "cannot map the test file twice");
	for (i = 0; i < NPAGES; i++)
		aware[i * PAGE + 1] = (unsigned char)i;
	cpu_flush(aware, NPAGES * PAGE);
	for (i = 0; i < NPAGES; i++)
		legacy[i * PAGE + 2] = (unsigned char)i;
	CHECK(msync(legacy, NPAGES * PAGE, MS_SYNC) == 0, "msync: %s", strerror(errno));
	CHECK(tracefs_start() == 0, "cannot enable the fs_dax tracepoints");
	for (i = 0; i < NPAGES; i++)
		aware[i * PAGE + 3] = (unsigned char)i;
	cpu_flush(aware, NPAGES * PAGE);
	CHECK(tracefs_count(file_ino(fd), &c) == 0, "cannot read the trace buffer");
	tap_diag("aware stores after a legacy msync: %lu dax faults for %d pages",
		 c.n[EV_PTE_FAULT_DONE], NPAGES);
	CHECK(c.n[EV_PTE_FAULT_DONE] == 0, "%lu refaults, expected 0", c.n[EV_PTE_FAULT_DONE]);
	return TAP_PASS;
}

/* Pages a legacy mapping dirtied are written back by an msync of the
 * aware mapping too: msync syncs the file range, whoever tagged it. */
static int test_aware_msync_of_legacy_writes(void *arg)
{
	unsigned char *aware, *legacy;
	long events;
	int fd, i;

	(void)arg;
	fd = map_aware_and_legacy("legacy-dirty", &aware, &legacy);
	CHECK(fd >= 0, "cannot map the test file twice");
	CHECK(tracefs_start() == 0, "cannot enable the fs_dax tracepoints");
	for (i = 0; i < NPAGES; i++)
		legacy[i * PAGE + 1] = (unsigned char)i;
	CHECK(msync(aware, NPAGES * PAGE, MS_SYNC) == 0, "msync: %s", strerror(errno));
	events = trace_count_writebacks(file_ino(fd));
	tap_diag("legacy writes, msync of the aware mapping: %ld write-backs for %d pages",
		 events, NPAGES);
	CHECK(events == NPAGES, "%ld write-backs, expected %d", events, NPAGES);
	return TAP_PASS;
}

/* ---- PMD faults ---------------------------------------------------------- */

#define PMD (2UL << 20)
#define NPMDS 2

/* A 2 MiB aligned shared mapping of the file in mode m. */
static unsigned char *map_pmd_aligned(const struct map_mode *m, int fd)
{
	unsigned char *area, *aligned;

	area = mmap(NULL, (NPMDS + 1) * PMD, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return MAP_FAILED;
	aligned = (unsigned char *)(((uintptr_t)area + PMD - 1) & ~(PMD - 1));
	return mmap(aligned, NPMDS * PMD, PROT_READ | PROT_WRITE, m->flags | MAP_FIXED, fd, 0);
}

/*
 * Two 2 MiB faults into fallocated blocks, one store each, then fsync:
 * the legacy modes write back the PMD entries, the aware ones nothing
 * (sync+aware goes through dax_insert_pfn_mkwrite at PMD order).
 */
static int test_pmd(void *arg)
{
	const struct map_mode *m = arg;
	struct dax_counts c;
	unsigned char *p;
	int fd, i;

	fd = make_file(cfg.dir, "pmd", HOLE, 0);
	CHECK(fd >= 0, "cannot create the test file");
	CHECK(fallocate(fd, 0, 0, NPMDS * PMD) == 0 && fsync(fd) == 0, "fallocate: %s",
	      strerror(errno));
	p = map_pmd_aligned(m, fd);
	CHECK(p != MAP_FAILED, "mmap %s: %s", m->name, strerror(errno));
	CHECK(tracefs_start() == 0, "cannot enable the fs_dax tracepoints");
	for (i = 0; i < NPMDS; i++)
		p[i * PMD + 1] = (unsigned char)i;
	if (m->aware)
		cpu_flush(p, NPMDS * PMD);
	CHECK(fsync(fd) == 0, "fsync: %s", strerror(errno));
	CHECK(tracefs_count(file_ino(fd), &c) == 0, "cannot read the trace buffer");
	tap_diag("pmd %s: %lu PMD faults (%lu fell back), %lu PTE faults, %lu mkwrite, "
		 "%lu write-backs for %d stores", m->name, c.n[EV_PMD_FAULT_DONE],
		 c.n[EV_PMD_FALLBACK], c.n[EV_PTE_FAULT_DONE], c.n[EV_INSERT_PFN_MKWRITE],
		 c.n[EV_WRITEBACK_ONE], NPMDS);
	if (cfg.pmd_expected)
		CHECK(c.n[EV_PMD_FAULT_DONE] >= NPMDS && !c.n[EV_PMD_FALLBACK] &&
		      !c.n[EV_PTE_FAULT_DONE], "no 2 MiB faults: the blocks are not 2 MiB aligned?");
	/* A synchronous PMD fault ends in dax_insert_pfn_mkwrite() at PMD order. */
	if (cfg.pmd_expected && m->sync)
		CHECK(c.n[EV_INSERT_PFN_MKWRITE] >= NPMDS, "%lu dax_insert_pfn_mkwrite at PMD order, expected %d",
		      c.n[EV_INSERT_PFN_MKWRITE], NPMDS);
	if (m->aware)
		CHECK(c.n[EV_WRITEBACK_ONE] == 0, "%lu write-backs, expected 0",
		      c.n[EV_WRITEBACK_ONE]);
	else
		CHECK(c.n[EV_WRITEBACK_ONE] >= NPMDS, "%lu write-backs, expected at least %d",
		      c.n[EV_WRITEBACK_ONE], NPMDS);
	return TAP_PASS;
}

static void run_pmd_tests(void)
{
	const struct map_mode *m;
	char name[128];

	for (m = map_modes; m->name; m++) {
		snprintf(name, sizeof(name), "pmd-dirty-tracking %s", m->name);
		if (m->aware && !cfg.aware)
			tap_result(TAP_SKIP, name, "kernel without MAP_PMEM_AWARE");
		else
			tap_run(name, test_pmd, (void *)m, TIMEOUT);
	}
}

/* ---- copy-on-write of a reflinked block -------------------------------- */

/*
 * A write fault on a reflinked block makes the kernel copy the old block
 * into the new one. The legacy modes leave the entry for fsync to write
 * back: at least one write-back per page (the sync mode writes some twice:
 * each synchronous fault's own fsync flushes the previous fault's entry).
 * The aware modes track nothing, the CoW fault included (series v3, patch
 * 4): the fault wrote its copy back itself (the cow-flush fix the series
 * is based on), so fsync writes back none. Whether that copy is durable
 * only an ADR model can see: tests/adr.t runs these faults under it.
 */
static int test_cow(void *arg)
{
	const struct map_mode *m = arg;
	char src[512], dst[512], buf[PAGE];
	unsigned char *p;
	long events;
	int sfd, fd, i;

	sfd = make_file(cfg.dir, "cow-src", PREALLOC, NPAGES * PAGE);
	CHECK(sfd >= 0, "cannot create the source file");
	snprintf(src, sizeof(src), "%s/cow-src", cfg.dir);
	snprintf(dst, sizeof(dst), "%s/cow-%s", cfg.dir, m->name);
	unlink(dst);
	fd = open(dst, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0, "open %s: %s", dst, strerror(errno));
	CHECK(ioctl(fd, FICLONE, sfd) == 0, "FICLONE %s -> %s: %s", src, dst, strerror(errno));
	CHECK(fsync(fd) == 0, "fsync: %s", strerror(errno));
	CHECK(file_is_dax(fd) == 1, "the clone is not DAX");
	p = map_mode_map(m, fd, NPAGES * PAGE);
	CHECK(p != MAP_FAILED, "mmap %s: %s", m->name, strerror(errno));
	CHECK(tracefs_start() == 0, "cannot enable the fs_dax tracepoints");
	for (i = 0; i < NPAGES; i++)
		p[i * PAGE + 1] = 0xc0;
	if (m->aware)
		cpu_flush(p, NPAGES * PAGE);
	CHECK(fsync(fd) == 0, "fsync: %s", strerror(errno));
	events = trace_count_writebacks(file_ino(fd));
	tap_diag("cow %s: %ld dax_writeback_one events for %d CoW pages (%s expected)",
		 m->name, events, NPAGES, m->aware ? "none" : "at least one a page");
	for (i = 0; i < NPAGES; i++) {
		CHECK(pread(sfd, buf, 2, (off_t)i * PAGE) == 2 && buf[1] == 0x5a,
		      "the source changed at page %d", i);
		CHECK(pread(fd, buf, PAGE, (off_t)i * PAGE) == PAGE && (unsigned char)buf[1] == 0xc0 &&
		      buf[0] == 0x5a && buf[PAGE - 1] == 0x5a, "the clone is wrong at page %d", i);
	}
	if (m->aware)
		CHECK(events == 0, "%ld write-backs: an aware CoW fault was tracked", events);
	else
		CHECK(events >= NPAGES, "%ld write-backs: the kernel's copy is never written back",
		      events);
	return TAP_PASS;
}

static void run_cow_tests(void)
{
	const struct map_mode *m;
	char name[128];
	int fd = make_file(cfg.dir, "cow-probe", PREALLOC, PAGE), cfd = -1, can_clone;
	char path[512];

	/* Whether this filesystem can reflink at all: a one-page clone. */
	snprintf(path, sizeof(path), "%s/cow-probe2", cfg.dir);
	if (fd >= 0)
		cfd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	can_clone = cfd >= 0 && ioctl(cfd, FICLONE, fd) == 0;
	if (cfd >= 0)
		close(cfd);
	if (fd >= 0)
		close(fd);
	for (m = map_modes; m->name; m++) {
		snprintf(name, sizeof(name), "cow-written-back %s", m->name);
		if (!can_clone)
			tap_result(TAP_SKIP, name, "the filesystem cannot reflink (xfs-reflink can)");
		else if (m->aware && !cfg.aware)
			tap_result(TAP_SKIP, name, "kernel without MAP_PMEM_AWARE");
		else
			tap_run(name, test_cow, (void *)m, TIMEOUT);
	}
}

static void run_lifecycle_tests(void)
{
	static const struct {
		const char *name;
		int (*fn)(void *);
	} cases[] = {
		{ "fork-child-stays-aware", test_fork },
		{ "mremap-mprotect-keep-aware", test_vma_ops },
		{ "private-aware-write-leaves-file", test_private },
		{ "remap-file-pages-drops-aware", test_remap_file_pages },
		{ "punch-and-truncate-under-aware-mapping", test_truncate_punch },
		{ "legacy-msync-leaves-aware-writable", test_legacy_sync_refaults },
		{ "aware-msync-writes-back-legacy-writes", test_aware_msync_of_legacy_writes },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!cfg.aware)
			tap_result(TAP_SKIP, cases[i].name, "kernel without MAP_PMEM_AWARE");
		else
			tap_run(cases[i].name, cases[i].fn, NULL, TIMEOUT);
	}
}

/* ---- a DAX device that is not synchronous ----------------------------- */

/*
 * virtio-pmem is DAX, but its flushes go through the host: a CPU cache
 * flush does not make a store durable, so the kernel refuses MAP_SYNC on
 * it, and the port must refuse MAP_PMEM_AWARE the same way (series patch
 * 3), while a plain shared mapping of the same DAX file works.
 */
static int test_async(void *arg)
{
	const struct map_mode *m = arg;
	int refused = m->sync || m->aware, fd;
	unsigned char *p;

	fd = make_file(cfg.async_dir, m->name, PREALLOC, NPAGES * PAGE);
	CHECK(fd >= 0, "cannot create the test file");
	CHECK(file_is_dax(fd) == 1, "%s/%s is not DAX: is the device virtio-pmem, mounted -o dax?",
	      cfg.async_dir, m->name);
	p = map_mode_map(m, fd, NPAGES * PAGE);
	if (refused) {
		CHECK(p == MAP_FAILED && errno == EOPNOTSUPP, "mmap %s on a non-synchronous DAX device: %s, expected EOPNOTSUPP",
		      m->name, p == MAP_FAILED ? strerror(errno) : "mapped");
	} else {
		CHECK(p != MAP_FAILED, "mmap %s: %s", m->name, strerror(errno));
		p[1] = 0x5a;
		CHECK(msync(p, NPAGES * PAGE, MS_SYNC) == 0, "msync: %s", strerror(errno));
	}
	close(fd);
	return TAP_PASS;
}

static void run_async_tests(void)
{
	const struct map_mode *m;
	char name[128];

	for (m = map_modes; m->name; m++) {
		snprintf(name, sizeof(name), "nonsync-dax %s", m->name);
		if (!cfg.async_dir)
			tap_result(TAP_SKIP, name, "no virtio-pmem device (pmem-harness run --virtio-pmem MIB)");
		else if (m->aware && !cfg.aware)
			tap_result(TAP_SKIP, name, "kernel without MAP_PMEM_AWARE");
		else
			tap_run(name, test_async, (void *)m, TIMEOUT);
	}
}

/* ---- plan -------------------------------------------------------------- */

static long expected_writebacks(const struct map_mode *m)
{
	return m->aware ? 0 : NPAGES;
}

/*
 * Whether a read fault through a legacy shared mapping tags the DAX entry
 * dirty, so that the next fsync writes the page back as if it were written.
 * 6.1's dax_insert_entry() computes "dirty = !dax_fault_is_synchronous()",
 * so it does; the rdfix patch set adds "write &&". Mainline made the same
 * change in 6.2, commit c6f0b395b211 ("fsdax,xfs: set the shared flag when
 * file extent is shared"), so in 6.12 dax_insert_entry() reads
 * "dirty = write && !dax_fault_is_synchronous()" and a stock 6.12 must
 * not tag read faults. Only 6.1.192 and 6.12.118 are built here, and both
 * were checked in source.
 * Sets *rel to the running kernel's "major.minor" for the test name.
 */
static int read_faults_tracked(char *rel, size_t len)
{
	struct utsname u;
	int major, minor;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2) {
		snprintf(rel, len, "unknown");
		return !cfg.rdfix;
	}
	snprintf(rel, len, "%d.%d", major, minor);
	if (cfg.rdfix)
		return 0;
	return major < 6 || (major == 6 && minor < 2);
}

static void run_flag_tests(void)
{
	int dax_aware = MAP_SHARED_VALIDATE | MAP_PMEM_AWARE;
	struct flag_case cases[] = {
		{ "validate-aware-on-dax", cfg.dir, dax_aware, cfg.aware ? 0 : EOPNOTSUPP,
		  PMEM_AWARE_VMFLAG, NULL },
		{ "validate-aware-on-tmpfs", cfg.tmpfs, dax_aware, EOPNOTSUPP, NULL, NULL },
		{ "validate-aware-on-nondax-file", cfg.nondax, dax_aware, EOPNOTSUPP, NULL, NULL },
		{ "shared-aware-is-legacy", cfg.dir, MAP_SHARED | MAP_PMEM_AWARE, 0, "sh",
		  PMEM_AWARE_VMFLAG },
		{ "private-aware-is-ignored", cfg.dir, MAP_PRIVATE | MAP_PMEM_AWARE, 0, NULL,
		  PMEM_AWARE_VMFLAG },
		{ "sync-aware-has-both-flags", cfg.dir, MAP_SHARED_VALIDATE | MAP_SYNC | MAP_PMEM_AWARE,
		  cfg.aware ? 0 : EOPNOTSUPP, "sf " PMEM_AWARE_VMFLAG, NULL },
		/*
		 * Upstream's own behaviour, against do_mmap()'s comment that
		 * MAP_SHARED silently ignores non-legacy flags: vm_flags are
		 * computed before the flags are stripped, so MAP_SYNC gives a
		 * VM_SYNC mapping on a DAX file and EOPNOTSUPP on a non-DAX one
		 * (docs/map-shared-sync.md). These pass while the kernel does so.
		 */
		{ "upstream-shared-sync-is-vm-sync", cfg.dir, MAP_SHARED | MAP_SYNC, 0, "sf", NULL },
		{ "upstream-shared-sync-fails-on-nondax-file", cfg.nondax, MAP_SHARED | MAP_SYNC, EOPNOTSUPP, NULL,
		  NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!cases[i].dir) {
			tap_result(TAP_SKIP, cases[i].name, "no directory given for this case");
			continue;
		}
		tap_run(cases[i].name, test_flags, &cases[i], TIMEOUT);
	}
}

static void run_dirty_tests(void)
{
	const struct map_mode *m;
	char name[128];
	int layout, msync_;

	for (m = map_modes; m->name; m++)
		for (layout = HOLE; layout <= PREALLOC; layout++)
			for (msync_ = 0; msync_ <= 1; msync_++) {
				struct dirty_case c = { m, layout, msync_, 0, expected_writebacks(m) };

				snprintf(name, sizeof(name), "dirty-tracking %s %s %s", m->name,
					 layout_name[layout], msync_ ? "msync" : "fsync");
				if (m->aware && !cfg.aware)
					tap_result(TAP_SKIP, name, "kernel without MAP_PMEM_AWARE");
				else
					tap_run(name, test_dirty, &c, TIMEOUT);
			}
	/* 6.1 tags read faults dirty too; the rdfix patch and 6.2+ do not. */
	{
		char rel[32];
		int tracked = read_faults_tracked(rel, sizeof(rel));
		struct dirty_case c = { map_mode_find("shared"), PREALLOC, 0, 1,
					tracked ? NPAGES : 0 };

		if (tracked)
			snprintf(name, sizeof(name), "read-faults-tracked (%s)", rel);
		else
			snprintf(name, sizeof(name), "read-faults-not-tracked (%s)",
				 cfg.rdfix ? "rdfix" : rel);
		tap_run(name, test_dirty, &c, TIMEOUT);
	}
}

/* Mark a directory FS_XFLAG_DAX so that files created in it are DAX on a
 * dax=inode mount, while files elsewhere are not. */
static int set_dax_flag(const char *dir)
{
	struct fsxattr fsx;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	if (fd < 0 || ioctl(fd, FS_IOC_FSGETXATTR, &fsx) < 0) {
		fprintf(stderr, "semantics: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	fsx.fsx_xflags |= FS_XFLAG_DAX;
	if (ioctl(fd, FS_IOC_FSSETXATTR, &fsx) < 0) {
		fprintf(stderr, "semantics: set FS_XFLAG_DAX on %s: %s\n", dir, strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

/*
 * semantics probe DIR: whether the running kernel has MAP_PMEM_AWARE, asked
 * as the first flag check asks it (validate-aware-on-dax) of a DAX file in
 * DIR. Exit 0: the mapping succeeds and smaps shows "pa"; 3: the kernel
 * refuses the flag, or takes it without the VMA flag (not this port); 1: it
 * could not be asked. vm-images/build-kernel.sh asks it of a user's kernel.
 */
static int probe(const char *dir)
{
	char vmflags[256] = "";
	void *p;
	int fd = make_file(dir, "probe", PREALLOC, NPAGES * PAGE);

	if (fd < 0)
		return 1;
	if (file_is_dax(fd) != 1) {
		fprintf(stderr, "semantics: %s/probe is not DAX: mount the filesystem -o dax\n", dir);
		return 1;
	}
	p = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_PMEM_AWARE, fd, 0);
	if (p == MAP_FAILED) {
		int err = errno;

		printf("map_pmem_aware: no (mmap MAP_SHARED_VALIDATE|MAP_PMEM_AWARE of a DAX file: %s)\n",
		       strerror(err));
		return err == EOPNOTSUPP || err == EINVAL ? 3 : 1;
	}
	if (smaps_vmflags(p, vmflags, sizeof(vmflags)) < 0) {
		fprintf(stderr, "semantics: no smaps entry for the mapping (CONFIG_PROC_PAGE_MONITOR?)\n");
		return 1;
	}
	if (!vmflags_has(vmflags, PMEM_AWARE_VMFLAG)) {
		printf("map_pmem_aware: no (the mapping succeeds, but VmFlags:%s lacks \"%s\")\n",
		       vmflags, PMEM_AWARE_VMFLAG);
		return 3;
	}
	printf("map_pmem_aware: yes (VmFlags:%s)\n", vmflags);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: semantics [--aware] [--rdfix] [--pmd-expected] --dir DIR [--nondax DIR]\n"
		"                 [--tmpfs DIR] [--async-dir DIR]\n"
		"       semantics write-pattern|verify-pattern FILE SEED PAGES\n"
		"       semantics set-dax-flag DIR\n"
		"       semantics probe DIR\n");
	return 2;
}

int main(int argc, char **argv)
{
	char rel[32];
	int i, rd_tracked;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "set-dax-flag"))
		return set_dax_flag(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "probe"))
		return probe(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "write-pattern"))
		return write_pattern(argv[2], atoi(argv[3]), atoi(argv[4])) == TAP_PASS ? 0 : 1;
	if (argc == 5 && !strcmp(argv[1], "verify-pattern"))
		return verify_pattern(argv[2], atoi(argv[3]), atoi(argv[4])) == TAP_PASS ? 0 : 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--aware"))
			cfg.aware = 1;
		else if (!strcmp(argv[i], "--rdfix"))
			cfg.rdfix = 1;
		else if (!strcmp(argv[i], "--pmd-expected"))
			cfg.pmd_expected = 1;

		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			cfg.dir = argv[++i];
		else if (!strcmp(argv[i], "--nondax") && i + 1 < argc)
			cfg.nondax = argv[++i];
		else if (!strcmp(argv[i], "--tmpfs") && i + 1 < argc)
			cfg.tmpfs = argv[++i];
		else if (!strcmp(argv[i], "--async-dir") && i + 1 < argc)
			cfg.async_dir = argv[++i];
		else
			return usage();
	}
	if (!cfg.dir)
		return usage();

	rd_tracked = read_faults_tracked(rel, sizeof(rel));
	tap_plan(8 + 16 + 1 + 1 + 7 + 4 + 4 + 4);
	tap_diag("kernel %s %s MAP_PMEM_AWARE, read faults %s; flush instruction %s",
		 rel, cfg.aware ? "with" : "without", rd_tracked ? "tracked" : "not tracked",
		 cpu_flush_insn());
	run_flag_tests();
	run_dirty_tests();
	if (cfg.aware)
		tap_run("mixed-aware-write-legacy-read", test_mixed, NULL, TIMEOUT);
	else
		tap_result(TAP_SKIP, "mixed-aware-write-legacy-read", "kernel without MAP_PMEM_AWARE");
	run_lifecycle_tests();
	run_pmd_tests();
	run_cow_tests();
	run_async_tests();
	return tap_exit();
}
