// SPDX-License-Identifier: GPL-2.0
/* reflink-bystander.c with copy_file_range() for the bystander: see there. */
#define REMAP remap_copy
#include "reflink-bystander.c"
