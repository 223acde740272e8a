// SPDX-License-Identifier: GPL-2.0
/* remap-stale-flushed.c's records are remap-stale.c's: the same check. */
#include "remap-stale-check.c"
