// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: names from a run rendered inert in the markdown and HTML
 * tables (results/table.c): a job, kernel or file name carrying markup,
 * quotes, table syntax or a newline cannot run script or break the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/table.h"
#include "tap.h"

static const char *const header[] = { "kernel", "job" };
static const char *const hostile[] = { "<script>alert(1)</script>", "a|b\n| x | y |\n\"q\" 'q' &amp;" };

static char *render(enum table_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct table t;

	table_begin(&t, f, fmt, "<img src=x onerror=alert(1)>", 2, header, NULL);
	table_row(&t, hostile);
	table_end(&t);
	table_note(f, fmt, "<b>note</b>");
	fclose(f);
	return buf;
}

/* Unescaped '|' on a line: a markdown row of n cells has n + 1. */
static int bars(const char *line, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len; i++)
		n += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
	return n;
}

int main(void)
{
	char *md = render(TABLE_MARKDOWN), *html = render(TABLE_HTML), *line, *nl;
	int rows = 0, shape = 1;

	tap_plan(3);
	tap_result(!strchr(md, '<') && !strchr(md, '>') ? TAP_PASS : TAP_FAIL,
		   "markdown: no raw markup from a run's names", NULL);
	for (line = md; (nl = strchr(line, '\n')); line = nl + 1)
		if (*line == '|') {
			rows++;
			shape &= bars(line, nl - line) == 3;
		}
	if (!shape || rows != 3)
		tap_diag("%s", md);
	tap_result(shape && rows == 3 ? TAP_PASS : TAP_FAIL,
		   "markdown: header, rule and one row of two cells, whatever the names hold", NULL);
	tap_result(!strstr(html, "<script") && !strstr(html, "<img") && !strstr(html, "<b>") &&
		   strstr(html, "&lt;script&gt;") && strstr(html, "&quot;q&quot; &#39;q&#39; &amp;amp;") ?
		   TAP_PASS : TAP_FAIL, "HTML: names, caption and notes escaped", NULL);
	free(md);
	free(html);
	return tap_exit();
}
