// SPDX-License-Identifier: GPL-2.0
/*
 * User-space persistence with CPU instructions (cpu_flush.h), in asm: each
 * program is built with this file, and <immintrin.h> took 0.33 of its 0.55 s.
 */
#include <cpuid.h>
#include <stdint.h>
#include <string.h>

#include "cpu_flush.h"

enum flush_kind { FLUSH_UNKNOWN, FLUSH_CLWB, FLUSH_CLFLUSHOPT, FLUSH_CLFLUSH };

static enum flush_kind flush_kind(void)
{
	static enum flush_kind kind;
	unsigned int a, b, c, d;

	if (kind != FLUSH_UNKNOWN)
		return kind;
	kind = FLUSH_CLFLUSH;
	/* CPUID.(EAX=7,ECX=0):EBX bit 24 = CLWB, bit 23 = CLFLUSHOPT */
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
		if (b & (1u << 24))
			kind = FLUSH_CLWB;
		else if (b & (1u << 23))
			kind = FLUSH_CLFLUSHOPT;
	}
	return kind;
}

const char *cpu_flush_insn(void)
{
	switch (flush_kind()) {
	case FLUSH_CLWB: return "clwb";
	case FLUSH_CLFLUSHOPT: return "clflushopt";
	default: return "clflush";
	}
}

static void flush_clwb(uintptr_t p, uintptr_t end)
{
	for (; p < end; p += CACHELINE)
		asm volatile("clwb %0" : "+m"(*(volatile char *)p));
}

static void flush_clflushopt(uintptr_t p, uintptr_t end)
{
	for (; p < end; p += CACHELINE)
		asm volatile("clflushopt %0" : "+m"(*(volatile char *)p));
}

static void flush_clflush(uintptr_t p, uintptr_t end)
{
	for (; p < end; p += CACHELINE)
		asm volatile("clflush %0" : "+m"(*(volatile char *)p));
}

void cpu_writeback_unfenced(const void *addr, size_t len)
{
	uintptr_t p = (uintptr_t)addr & ~(uintptr_t)(CACHELINE - 1);
	uintptr_t end = (uintptr_t)addr + len;

	switch (flush_kind()) {
	case FLUSH_CLWB: flush_clwb(p, end); break;
	case FLUSH_CLFLUSHOPT: flush_clflushopt(p, end); break;
	default: flush_clflush(p, end); break;
	}
}

void cpu_flush(const void *addr, size_t len)
{
	cpu_writeback_unfenced(addr, len);
	/* clflush is ordered by itself; the others need the fence. */
	asm volatile("sfence" ::: "memory");
}

void cpu_ntstore_copy_unfenced(void *dst, const void *src, size_t len)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t head = 0;

	/* Cached stores up to the first 8-byte boundary (flushed), movnti after. */
	while (len && ((uintptr_t)d & 7)) {
		*d++ = *s++;
		len--;
		head++;
	}
	if (head)
		cpu_flush(dst, head);
	for (; len >= 8; len -= 8, d += 8, s += 8) {
		long long v;

		memcpy(&v, s, 8);
		asm volatile("movnti %1, %0" : "=m"(*(long long *)d) : "r"(v));
	}
	if (len) {
		memcpy(d, s, len);
		cpu_flush(d, len);
	}
}

void cpu_ntstore_copy(void *dst, const void *src, size_t len)
{
	cpu_ntstore_copy_unfenced(dst, src, len);
	asm volatile("sfence" ::: "memory");
}
