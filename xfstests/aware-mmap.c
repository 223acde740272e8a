// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD library for `make xfstests FORCE_AWARE=1`: every shared mapping
 * of a file asks for MAP_PMEM_AWARE first, so that xfstests' own mmap tests
 * (t_mmap_dio, t_mmap_collision, t_mmap_cow_race, xfs_io's mmap, ...) fault
 * through the port's paths. A mapping the kernel refuses with the flag (a
 * file without DAX, or a kernel without the port: EOPNOTSUPP) is made as the
 * program asked. With PMEM_AWARE_LOG set, each mapping made aware appends a
 * line there, so the run can say how many there were.
 *
 * Built with -DAWARE_WRAP it is instead linked into a static program
 * (targets/pmdk/build.sh: data_store-aware and the like), wrapping mmap.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
/* The port's value on x86-64 (vm-images/patches/<version>/aware/0001). */
#define MAP_PMEM_AWARE 0x200000
#define MAP_TYPE_MASK 0x0f

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

static void note_aware(size_t len)
{
	const char *log = getenv("PMEM_AWARE_LOG");
	char line[64];
	int fd, n;

	if (!log)
		return;
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "aware %zu\n", len);
	if (write(fd, line, n) != n)
		n = -1;
	close(fd);
}

static void *aware_first(mmap_fn real, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	int type = flags & MAP_TYPE_MASK, saved = errno;
	void *p;

	if (fd < 0 || (type != MAP_SHARED && type != MAP_SHARED_VALIDATE))
		return real(addr, len, prot, flags, fd, off);
	p = real(addr, len, prot, (flags & ~MAP_TYPE_MASK) | MAP_SHARED_VALIDATE | MAP_PMEM_AWARE, fd, off);
	if (p != MAP_FAILED) {
		note_aware(len);
		return p;
	}
	errno = saved;
	return real(addr, len, prot, flags, fd, off);
}

#ifdef AWARE_WRAP
/*
 * Linked into a static program with -Wl,--wrap=mmap,--wrap=mmap64 (no
 * LD_PRELOAD reaches a static binary): every call the program's own
 * objects make to mmap comes here; libc's internal mappings do not.
 */
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__real_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return aware_first(__real_mmap, addr, len, prot, flags, fd, off);
}

void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return aware_first(__real_mmap64, addr, len, prot, flags, fd, off);
}
#else
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static mmap_fn real;

	if (!real)
		real = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
	return aware_first(real, addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static mmap_fn real;

	if (!real)
		real = (mmap_fn)dlsym(RTLD_NEXT, "mmap64");
	return aware_first(real, addr, len, prot, flags, fd, off);
}
#endif
