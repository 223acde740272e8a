/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One table, three renderings: aligned text for the terminal, markdown for
 * report.md, HTML for the report page. Callers build rows of strings.
 */
#ifndef PMEM_TABLE_H
#define PMEM_TABLE_H

#include <stdio.h>

enum table_format { TABLE_TEXT, TABLE_MARKDOWN, TABLE_HTML };

#define TABLE_MAX_COLS 16

struct table {
	FILE *out;
	enum table_format fmt;
	int ncols;
	int width[TABLE_MAX_COLS];	/* text only: column widths */
};

/* Caption and header row; width[] is used for TABLE_TEXT only (may be NULL). */
void table_begin(struct table *t, FILE *out, enum table_format fmt, const char *caption,
		 int ncols, const char *const *header, const int *width);
void table_row(struct table *t, const char *const *cells);
void table_end(struct table *t);

/* A paragraph in the table's format (text: a plain line). */
void table_note(FILE *out, enum table_format fmt, const char *text);
/* s with &, <, >, " and ' escaped. */
void html_escape(FILE *out, const char *s);

#endif
