// SPDX-License-Identifier: GPL-2.0
/*
 * tagged-log.c's correct twin: the payload is written back and fenced
 * before the header is stored, so the header is never durable before its
 * payload, and the tag check's missing line never matters. Checked by
 * tagged-log-ordered-check.c.
 */
#define LOG_ORDERED 1
#include "tagged-log.c"
