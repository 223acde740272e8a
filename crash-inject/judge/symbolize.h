/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for guest PCs: user code as file:line (addr2line on the program,
 * which is built with -g), kernel code as function+offset (the flavour's
 * System.map; our guest kernels have no KASLR).
 */
#ifndef PMEM_SYMBOLIZE_H
#define PMEM_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	char name[64];
};

struct symbolizer {
	const char *program;	/* user binary, or NULL */
	uint64_t program_bias;	/* subtract from a PC before addr2line (PIE load address) */
	struct ksym *ksyms;	/* sorted */
	size_t nksyms;
	/* addr2line answers already asked for */
	uint64_t *pcs, *callers;	/* caller 0: a plain PC */
	char (*names)[160];
	size_t n, cap;
};

/* Load System.map (may be missing: kernel PCs are then printed raw). */
void symbolizer_init(struct symbolizer *s, const char *program, uint64_t bias, const char *system_map);
/* Ask addr2line for many user PCs at once (one process); optional. */
void symbolizer_prefetch(struct symbolizer *s, const uint64_t *pcs, size_t n);
/* "file.c:42 (function)", "function+0x1a/0x80", or "0x..." */
const char *symbolize(struct symbolizer *s, uint64_t pc);
/* A store's site: when a copy routine (memcpy) stored, its caller's. */
const char *symbolize_store(struct symbolizer *s, uint64_t pc, uint64_t caller);
void symbolizer_free(struct symbolizer *s);

#endif
