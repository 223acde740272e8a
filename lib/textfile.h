/* SPDX-License-Identifier: GPL-2.0 */
/* Whole text files: job scripts, job files, guest logs. */
#ifndef HARNESS_TEXTFILE_H
#define HARNESS_TEXTFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

/* The file's contents, NUL-terminated ("-" reads stdin); NULL if it cannot
 * be opened (errno set). The caller frees it. */
char *read_text_file(const char *path);

/*
 * A text file written whole (a run's plan.txt): text_file_begin() opens
 * PATH.tmp for the caller to write to o->f, text_file_commit() closes it
 * and renames it over PATH, so a reader never sees half of it. Each
 * returns -1 with why filled, and leaves no PATH.tmp behind on failure.
 */
struct text_out {
	FILE *f;
	char path[PATH_MAX], tmp[PATH_MAX];
};
int text_file_begin(struct text_out *o, const char *path, char *why, size_t len);
int text_file_commit(struct text_out *o, char *why, size_t len);

#endif
