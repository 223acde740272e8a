// SPDX-License-Identifier: GPL-2.0
/*
 * nt-head.c's correct twin: the head of each non-temporal copy is written
 * back with clwb before the non-temporal stores, as the kernel's
 * __memcpy_flushcache() and PMDK's memmove_movnt do. Checked by
 * nt-head-flushed-check.c.
 */
#define NT_HEAD_WRITEBACK 1
#include "nt-head.c"
