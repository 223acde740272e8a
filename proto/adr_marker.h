/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ADR model's start marker, both sides of it: the crash writer guest
 * runs it (pmem-agent model-start, vm-images/guest/crash-writer.sh) just
 * before it mounts the NVDIMM, and the model's plugin
 * (crash-inject/model/adr-cache.c, with wait_start=1) instruments nothing
 * but this instruction until a user-mode process runs it. The guest's boot
 * then runs without a callback on every store, and every store before the
 * marker is taken as durable.
 *
 * An instruction with no architectural effect, as the ack marker
 * (workloads/ack.h, 66 87 d2) is: 66 87 c9, xchg %cx,%cx.
 */
#ifndef PMEM_PROTO_ADR_MARKER_H
#define PMEM_PROTO_ADR_MARKER_H

#define ADR_START_MARKER_BYTES { 0x66, 0x87, 0xc9 }

static inline void adr_start_marker(void)
{
	__asm__ volatile(".byte 0x66, 0x87, 0xc9" : : : "memory");
}

#endif
