// SPDX-License-Identifier: GPL-2.0
/* One table, three renderings: see table.h. */
#include <ctype.h>
#include <string.h>

#include "table.h"

void html_escape(FILE *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
}

/* Markdown passes HTML through: text from a run (a user's names, a
 * guest's) goes in with <, > and & as entities. */
static void md_text(FILE *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		default: fputc(*s, out);
		}
}

/* The same in a cell, where a '|' would end the cell and a newline the row. */
static void md_cell(FILE *out, const char *s)
{
	char one[2] = "";

	for (; *s; s++)
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else
			one[0] = *s, md_text(out, one);
}

/* Figures ("52.7k [52.2k-70.8k] x1.31*") align right; words wrap. */
static int is_number(const char *s)
{
	return isdigit((unsigned char)s[0]) && s[strspn(s, "0123456789.-+kMGT[]x*% ")] == '\0';
}

static void row(struct table *t, const char *const *cells, int header)
{
	int i;

	switch (t->fmt) {
	case TABLE_TEXT:
		fputs("  ", t->out);
		for (i = 0; i < t->ncols; i++)
			if (i + 1 < t->ncols)
				fprintf(t->out, "%-*s ", t->width[i], cells[i]);
			else
				fputs(cells[i], t->out);
		fputc('\n', t->out);
		break;
	case TABLE_MARKDOWN:
		for (i = 0; i < t->ncols; i++) {
			fputs("| ", t->out);
			md_cell(t->out, cells[i]);
			fputc(' ', t->out);
		}
		fputs("|\n", t->out);
		if (header) {
			for (i = 0; i < t->ncols; i++)
				fputs("|:---", t->out);
			fputs("|\n", t->out);
		}
		break;
	case TABLE_HTML:
		fputs("<tr>", t->out);
		for (i = 0; i < t->ncols; i++) {
			fputs(header ? "<th>" : i && is_number(cells[i]) ? "<td class=\"num\">" : "<td>", t->out);
			html_escape(t->out, cells[i]);
			fputs(header ? "</th>" : "</td>", t->out);
		}
		fputs("</tr>\n", t->out);
		break;
	}
}

void table_begin(struct table *t, FILE *out, enum table_format fmt, const char *caption,
		 int ncols, const char *const *header, const int *width)
{
	int i;

	memset(t, 0, sizeof(*t));
	t->out = out;
	t->fmt = fmt;
	t->ncols = ncols < TABLE_MAX_COLS ? ncols : TABLE_MAX_COLS;
	for (i = 0; i < t->ncols; i++)
		t->width[i] = width ? width[i] : (int)strlen(header[i]);
	switch (fmt) {
	case TABLE_TEXT:
		if (caption)
			fprintf(out, "\n%s\n", caption);
		break;
	case TABLE_MARKDOWN:
		if (caption) {
			fputs("\n**", out);
			md_text(out, caption);
			fputs("**\n\n", out);
		} else
			fputc('\n', out);
		break;
	case TABLE_HTML:
		fputs("<table>", out);
		if (caption) {
			fputs("<caption>", out);
			html_escape(out, caption);
			fputs("</caption>", out);
		}
		fputc('\n', out);
		break;
	}
	row(t, header, 1);
}

void table_row(struct table *t, const char *const *cells)
{
	row(t, cells, 0);
}

void table_end(struct table *t)
{
	if (t->fmt == TABLE_HTML)
		fputs("</table>\n", t->out);
}

void table_note(FILE *out, enum table_format fmt, const char *text)
{
	switch (fmt) {
	case TABLE_TEXT: fprintf(out, "%s\n", text); break;
	case TABLE_MARKDOWN:
		fputc('\n', out);
		md_text(out, text);
		fputc('\n', out);
		break;
	case TABLE_HTML:
		fputs("<p>", out);
		html_escape(out, text);
		fputs("</p>\n", out);
		break;
	}
}
