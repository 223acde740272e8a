/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A makefile fragment read as data: lines "NAME := words", comments and
 * blank lines, nothing else. Make includes the same file, so a fact the
 * harness and the Makefile both need is written once.
 */
#ifndef HARNESS_MAKE_VARS_H
#define HARNESS_MAKE_VARS_H

#include <stddef.h>

/*
 * The words of NAME in the fragment at path, split at blanks as make splits
 * them: a NULL-terminated array in one allocation (free() it), or NULL with
 * one line in why: the file unreadable, a line of another shape or holding
 * a $ (make would expand it, we would not), or NAME not there.
 */
char **make_var(const char *path, const char *name, char *why, size_t len);

#endif
