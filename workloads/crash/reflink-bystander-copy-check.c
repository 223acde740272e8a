// SPDX-License-Identifier: GPL-2.0
/* reflink-bystander-copy.c's records are reflink-bystander.c's: the same check. */
#include "reflink-bystander-check.c"
