/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names that become parts of host paths (cell files, unit and scenario
 * directories) come from job files and from guests: only these may.
 */
#ifndef HARNESS_NAMES_H
#define HARNESS_NAMES_H

#include <stddef.h>

/* 1 when s is 1..max-1 of [A-Za-z0-9._+-] and does not start with '.':
 * no '/', no "..", no spaces, quotes or shell metacharacters. */
int name_is_safe(const char *s, size_t max);

#endif
