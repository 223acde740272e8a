// SPDX-License-Identifier: GPL-2.0
/* crosspage-half.c's lines are crosspage.c's: the same check. */
#include "crosspage-check.c"
