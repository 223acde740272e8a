// SPDX-License-Identifier: GPL-2.0
/*
 * torn-commit.c's correct twin: the data words are written back and
 * fenced before the commit word is stored, so the commit word is never
 * durable before them, torn line or not. Checked by
 * torn-commit-ordered-check.c.
 */
#define COMMIT_ORDERED 1
#include "torn-commit.c"
