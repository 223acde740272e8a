/* SPDX-License-Identifier: GPL-2.0 */
/* Result documents: pretty JSON written atomically (temp file + rename). */
#ifndef HARNESS_JSONIO_H
#define HARNESS_JSONIO_H

#include <jansson.h>

/* Returns 0, or -1 with one error line printed and errno set (ENOSPC: the
 * disk is full); never leaves a partial file. */
int json_write_atomic(const char *path, json_t *doc);
/*
 * The same, silent: the error line goes to why, for a caller that says one
 * line of its own (bench on a full disk).
 */
int json_write_atomic_why(const char *path, json_t *doc, char *why, size_t len);
/* Load a JSON file; NULL (with an error line) if missing or malformed. */
json_t *json_read_file(const char *path);

#endif
