// SPDX-License-Identifier: GPL-2.0
/* reflink-bystander.c, the owner storing again after the ack: see there. */
#define REWRITE 1
#include "reflink-bystander.c"
