// SPDX-License-Identifier: GPL-2.0
/* tagged-log-ordered.c: the same log as tagged-log.c. */
#include "tagged-log-check.c"
