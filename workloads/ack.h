/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The acknowledgement protocol. A program acknowledges a record only after
 * its persistence call for that record returned:
 *
 *	record_fill(buf, len, seq, off);
 *	memcpy(map + off, buf, len);
 *	pmem_persist(map + off, len);		// or clwb + sfence, msync, ...
 *	if (ack(seq, off, len) < 0)		// returns once the host logged it
 *		exit(1);
 *
 * ack() writes "ack <seq> <off> <len>" on the harness's control port and
 * waits for "ok <seq>": the host keeps its log outside the guest, so the
 * log survives the crash the host may inject right after logging.
 * Outside a harness guest (no port) ack_open() fails and says why.
 */
#ifndef PMEM_ACK_H
#define PMEM_ACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int ack_open(void);
int ack(uint64_t seq, uint64_t off, size_t len);
/*
 * The same, naming where the record is mapped: under the ADR model
 * (PLATFORM=adr) a crash image is taken at the moment of the claim, and a
 * lost record is traced to the store whose line was dropped. ack() is
 * ack_at() with no address.
 */
int ack_at(uint64_t seq, uint64_t off, size_t len, const void *addr);

/*
 * The ack marker: an instruction with no architectural effect (66 87 d2,
 * xchg %dx,%dx) that the ADR model plugin (crash-inject/model/adr-cache.c)
 * recognises; rdi, rsi and rcx carry the sequence, address and length. It
 * runs before the system call that carries the ack, so the kernel's own
 * locked instructions on that path cannot fence what the program forgot to.
 */
static inline void ack_marker(uint64_t seq, const void *addr, size_t len)
{
	__asm__ volatile(".byte 0x66, 0x87, 0xd2" : : "D"(seq), "S"(addr), "c"(len) : "memory");
}
void ack_close(void);

#ifdef __cplusplus
}
#endif

#endif
