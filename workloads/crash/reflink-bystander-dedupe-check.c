// SPDX-License-Identifier: GPL-2.0
/* reflink-bystander-dedupe.c's records are reflink-bystander.c's: the same check. */
#include "reflink-bystander-check.c"
