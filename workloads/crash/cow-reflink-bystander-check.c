// SPDX-License-Identifier: GPL-2.0
/* cow-reflink-bystander.c's records are cow-reflink.c's: the same check. */
#include "cow-reflink-check.c"
