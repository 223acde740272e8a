/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HARNESS_GUEST_EVENTS_H
#define HARNESS_GUEST_EVENTS_H

#include "vm.h"

/*
 * When $PMEM_GUEST_EVENTS names a file, append one line to it for a guest
 * whose console showed a kernel WARNING, BUG, Oops or panic:
 * "event<TAB>run dir<TAB>console line". The test suite sets it, so that a
 * splat in any guest any command boots fails the test that booted it
 * (tests/lib/guest-tap.sh), not only a guest whose run stopped on it.
 */
void guest_events_record(const char *run_dir, const struct vm_result *r);

#endif
