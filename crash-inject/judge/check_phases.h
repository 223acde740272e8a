/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a checker's time per image goes: the host's write of the image into
 * the checker's NVDIMM, and the guest's own steps as pmem-checker reports
 * them in its document on the image, "phase" (judge.h; guest milliseconds:
 * under TCG only their ratios and the host's wall time mean anything).
 */
#ifndef PMEM_CHECK_PHASES_H
#define PMEM_CHECK_PHASES_H

#include <jansson.h>
#include <stddef.h>

/* round: the host's wall time from handing the image over to the guest's
 * next request, so it holds the guest's steps and what lies between them
 * (its report, the protocol, the guest's clock running apart from ours). */
enum { PHASE_WRITE, PHASE_MOUNT, PHASE_VERIFY, PHASE_UMOUNT, PHASE_FSCK, PHASE_ROUND, NPHASES };

/* The guest's figures come with its report (check_report_load(), judge.h):
 * missing, malformed or absurd ones (negative, not finite, over an hour)
 * leave have_guest 0, for the guest is not trusted to report sane numbers. */
struct check_phases {
	double ms[NPHASES];
	int have_guest;		/* the guest's phases were read and believed */
	int have_round;		/* the guest asked again after this image */
};

extern const char *const check_phase_names[NPHASES];

/* { "write": {n, median, min, max}, ... } over the n entries that have them. */
json_t *check_phases_json(const struct check_phases *p, size_t n);

#endif
