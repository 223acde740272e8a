// SPDX-License-Identifier: GPL-2.0
/* crosspage.c with a planted bug: only the first of the store's two lines is written back. */
#define FLUSH_FIRST_PAGE_ONLY
#include "crosspage.c"
