// SPDX-License-Identifier: GPL-2.0
/* header-reset-fields.c: the same log as header-reset.c. */
#include "header-reset-check.c"
