/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How many guests shared the host with a unit's guest: under TCG a guest's
 * emulated time stretches when another guest takes its core, so a time is
 * comparable only with times measured under the same sharing. Instruction
 * and tracepoint counts do not depend on it.
 */
#ifndef HARNESS_HOST_SHARE_H
#define HARNESS_HOST_SHARE_H

#include <jansson.h>
#include <pthread.h>

struct host_share {
	pthread_t thread;
	pthread_mutex_t lock;
	int stop, started;
	unsigned long samples, sum, max;	/* QEMU processes seen, ours included */
};

/* Sample the host's QEMU processes once a second until host_share_stop. */
void host_share_start(struct host_share *hs);

/* {"host", "cpus", "guests_max", "guests_mean", "samples"} */
json_t *host_share_stop(struct host_share *hs);

/* QEMU system emulators running on this host now. */
unsigned long host_qemu_count(void);

#endif
