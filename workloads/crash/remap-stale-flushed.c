// SPDX-License-Identifier: GPL-2.0
/* remap-stale.c's correct twin: the records are written back before the unmap. */
#define FLUSH_BEFORE_UNMAP
#include "remap-stale.c"
