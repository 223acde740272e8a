/* SPDX-License-Identifier: GPL-2.0 */
/* Whole text files: job scripts, job files, guest logs. */
#ifndef HARNESS_TEXTFILE_H
#define HARNESS_TEXTFILE_H

/* The file's contents, NUL-terminated ("-" reads stdin); NULL if it cannot
 * be opened (errno set). The caller frees it. */
char *read_text_file(const char *path);

#endif
