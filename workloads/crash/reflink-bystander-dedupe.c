// SPDX-License-Identifier: GPL-2.0
/* reflink-bystander.c with FIDEDUPERANGE for the bystander: see there. */
#define REMAP remap_dedupe
#include "reflink-bystander.c"
