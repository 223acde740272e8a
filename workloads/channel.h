/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest side of the harness channel: virtio-serial ports found by name.
 * Used by pmem-agent and, later, by the ack library that workloads link.
 */
#ifndef PMEM_CHANNEL_H
#define PMEM_CHANNEL_H

#include <stddef.h>
#include <sys/types.h>

#define CHANNEL_CTL "pmem.ctl"
#define CHANNEL_OUT "pmem.out"

/* Resolve a port name to its /dev node via /sys/class/virtio-ports. */
int channel_find_port(const char *name, char *path, size_t size);
/* Open a port read-write; prints one error line and returns -1 on failure. */
int channel_open(const char *name);
int channel_printf(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Read one '\n'-terminated line (newline stripped), byte by byte so that
 * nothing after it is consumed. */
int channel_read_line(int fd, char *buf, size_t size);
/* Copy exactly len bytes from in to out. */
int channel_copy(int in, int out, off_t len);

#endif
