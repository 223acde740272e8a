// SPDX-License-Identifier: GPL-2.0
/* nt-head-flushed.c: the same records as nt-head.c. */
#include "nt-head-check.c"
