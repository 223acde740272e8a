/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space persistence with CPU instructions: cache-line write-back
 * (clwb, else clflushopt, else clflush, chosen by CPUID) and non-temporal
 * copies, each ended by sfence.
 */
#ifndef PMEM_CPU_FLUSH_H
#define PMEM_CPU_FLUSH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CACHELINE 64

/* "clwb", "clflushopt" or "clflush": what cpu_flush() uses on this CPU. */
const char *cpu_flush_insn(void);
/* Write back every cache line of [addr, addr + len), then sfence. */
void cpu_flush(const void *addr, size_t len);
/* Copy with non-temporal stores, then sfence. */
void cpu_ntstore_copy(void *dst, const void *src, size_t len);
/*
 * The same without the closing sfence: for the planted bugs the crash tester
 * must catch (persist=clwb-nofence, persist=ntstore-nofence). Nothing else
 * should call these.
 */
void cpu_writeback_unfenced(const void *addr, size_t len);
void cpu_ntstore_copy_unfenced(void *dst, const void *src, size_t len);

#ifdef __cplusplus
}
#endif

#endif
