// SPDX-License-Identifier: GPL-2.0
/* A word written for sh: see shell_word.h. */
#include <string.h>

#include "shell_word.h"

void shell_word(FILE *f, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+-.,/:=@") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

void unit_command(FILE *f, const char *harness, const char *run_dir, const char *a, const char *b,
		  const char *c)
{
	const char *words[] = { run_dir, a, b, c };

	shell_word(f, harness);
	fputs(" unit", f);
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]) && words[i]; i++) {
		fputc(' ', f);
		shell_word(f, words[i]);
	}
	fputc('\n', f);
}
