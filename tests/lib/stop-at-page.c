// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD library for a test: it stops the process (SIGSTOP) just
 * before the write that first reaches a given page of a given file, so the
 * test can fill the disk under it at that moment and let it go on
 * (SIGCONT). The write then meets the full disk for real, at a known
 * place, where a guess at timing would be flaky.
 *
 *   PMEM_STOP_FILE  what the file's path contains ("program__xfs/acks.log")
 *   PMEM_STOP_PAGE  the 4 KiB page the write reaches (default 0: a new file;
 *                   "any": every write to the file counts, for sparse copies
 *                   whose first write may start past page 0)
 *   PMEM_STOP_NTH   stop at the Nth such write (default 1)
 *
 * It sees write(2) called from a library (jansson writes the harness's
 * JSON documents so), fflush(3) (the harness's acks.log, a stdio file) and
 * copy_file_range(2) (crash images and the ADR model's crash points).
 * Programs the process starts do not inherit it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096

static const char *want;
static off_t page;
static long nth = 1, seen;
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_fflush)(FILE *);
static ssize_t (*real_copy_file_range)(int, off_t *, int, off_t *, size_t, unsigned int);

__attribute__((constructor)) static void init(void)
{
	const char *p = getenv("PMEM_STOP_PAGE"), *n = getenv("PMEM_STOP_NTH");

	want = getenv("PMEM_STOP_FILE");
	page = !p ? 0 : strcmp(p, "any") ? atol(p) : -1;
	nth = n ? atol(n) : 1;
	real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	real_fflush = (int (*)(FILE *))dlsym(RTLD_NEXT, "fflush");
	real_copy_file_range = (ssize_t (*)(int, off_t *, int, off_t *, size_t, unsigned int))
		dlsym(RTLD_NEXT, "copy_file_range");
	unsetenv("LD_PRELOAD");
}

/* Stop if writing n bytes at off (-1: fd's offset) is the write chosen. */
static void maybe_stop(int fd, off_t at, size_t n)
{
	char link[64], path[4096];
	ssize_t len;
	off_t off;

	if (!want || !n || seen >= nth)
		return;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	if (len <= 0)
		return;
	path[len] = '\0';
	if (!strstr(path, want))
		return;
	off = at >= 0 ? at : lseek(fd, 0, SEEK_CUR);
	if (page >= 0 && (off < 0 || off > page * PAGE || off + (off_t)n <= page * PAGE))
		return;
	if (++seen == nth)
		raise(SIGSTOP);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	maybe_stop(fd, -1, n);
	return real_write(fd, buf, n);
}

int fflush(FILE *f)
{
	if (f)
		maybe_stop(fileno(f), -1, __fpending(f));
	return real_fflush(f);
}

/* How crash images and ADR points are copied (crash-inject/image.c). */
ssize_t copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t n, unsigned int flags)
{
	maybe_stop(out, out_off ? *out_off : -1, n);
	return real_copy_file_range(in, in_off, out, out_off, n, flags);
}
