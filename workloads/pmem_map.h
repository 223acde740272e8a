/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The four mapping modes, one vocabulary for every program of the project:
 * shared, sync, aware, sync+aware (see README.md).
 */
#ifndef PMEM_MAP_H
#define PMEM_MAP_H

#include <stddef.h>
#include <sys/mman.h>

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif
/*
 * The port's value (vm-images/patches/<version>/aware/0001) lives in
 * asm-generic/mman-common.h; alpha, mips, parisc and xtensa do not get the
 * flag, and it is built and tested only on x86-64, so guess nowhere else.
 */
#if !defined(MAP_PMEM_AWARE) && defined(__x86_64__)
#define MAP_PMEM_AWARE 0x200000
#endif

/* The smaps VmFlags mnemonic of VM_PMEM_AWARE. */
#define PMEM_AWARE_VMFLAG "pa"

struct map_mode {
	const char *name;
	int flags;		/* mmap flags, MAP_SHARED[_VALIDATE] included */
	int aware;		/* skips dirty tracking on the aware kernel */
	int sync;		/* write faults commit metadata */
	const char *help;
};

extern const struct map_mode map_modes[];	/* ends with { NULL } */

/* NULL for an unknown name. */
const struct map_mode *map_mode_find(const char *name);
/* mmap(len, PROT_READ|PROT_WRITE, mode flags, fd, 0); MAP_FAILED and errno on failure. */
void *map_mode_map(const struct map_mode *m, int fd, size_t len);
/* VmFlags line of the smaps entry that contains addr, or -1. */
int smaps_vmflags(const void *addr, char *buf, size_t size);
/* Whether a VmFlags line has the two-letter flag. */
int vmflags_has(const char *vmflags, const char *flag);

#endif
