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

int ack_open(void);
int ack(uint64_t seq, uint64_t off, size_t len);
void ack_close(void);

#endif
