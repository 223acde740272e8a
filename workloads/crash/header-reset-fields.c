// SPDX-License-Identifier: GPL-2.0
/*
 * header-reset.c's correct twin: the new count is stored over the old
 * one, and no other word of the header changes, so every value the
 * header line holds is a whole header, old or new. Checked by
 * header-reset-fields-check.c.
 */
#define HEADER_FIELDS 1
#include "header-reset.c"
