/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Markers for the insn-per-fault TCG plugin (bench/insn-per-fault.c),
 * which counts the guest kernel instructions a vCPU executes between
 * insn_mark_start() and insn_mark_stop().
 *
 * Each marker is an instruction with no architectural effect (exchanging a
 * register with itself) whose bytes the plugin recognises when QEMU
 * translates it; nothing is written anywhere, so a marker costs nothing on
 * real hardware or under KVM, and no system call is added to what is
 * measured. The bytes are spelled out rather than left to the assembler so
 * that they cannot differ from what the plugin looks for:
 *   start  66 87 db   xchg %bx,%bx
 *   stop   66 87 c9   xchg %cx,%cx
 *
 * The "memory" clobber keeps the compiler from moving memory accesses (the
 * first touch being measured) across a marker. It does not order anything
 * else, and the plugin counts per vCPU: a measured thread must stay on one
 * CPU (sched_setaffinity) when the guest has more than one.
 */
#ifndef PMEM_INSN_MARKER_H
#define PMEM_INSN_MARKER_H

static inline void insn_mark_start(void)
{
	__asm__ volatile(".byte 0x66, 0x87, 0xdb" : : : "memory"); /* xchg %bx,%bx */
}

static inline void insn_mark_stop(void)
{
	__asm__ volatile(".byte 0x66, 0x87, 0xc9" : : : "memory"); /* xchg %cx,%cx */
}

#endif
