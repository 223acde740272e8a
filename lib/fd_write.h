/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMEM_FD_WRITE_H
#define PMEM_FD_WRITE_H

#include <stddef.h>

/* All len bytes of buf to fd, through short writes and EINTR; 0 or -1. */
int write_all(int fd, const void *buf, size_t len);

#endif
