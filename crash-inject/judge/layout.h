/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a crash image's records are, as the record verifier needs to know:
 * the contract every crash job and program writes by (README, "Crash-testing
 * your own program"), kept here once for every host command that checks
 * images.
 *
 *   file         data in the crash directory of the DAX mount
 *   record size  the length the writer acknowledged its records with
 *
 * The record size is read from the acks rather than restated from the job
 * files: a program that writes 512-byte records is verified in 512-byte
 * slots.
 */
#ifndef PMEM_CRASH_LAYOUT_H
#define PMEM_CRASH_LAYOUT_H

#include <stddef.h>

#include "judge.h"

/* Relative to the checker's mount point. */
#define CRASH_DATA_FILE "crash/data"

/*
 * The length of the first ack: the writer's record size. A program that
 * acknowledges other lengths too (words of a second file) checks with its
 * own checker, which reads no slots. With no acks the judge compares
 * nothing, and any size does: a page.
 */
size_t crash_record_size(const struct ack_rec *acks, size_t nacks);

#endif
