// SPDX-License-Identifier: GPL-2.0
/* torn-commit-ordered.c: the same log as torn-commit.c. */
#include "torn-commit-check.c"
