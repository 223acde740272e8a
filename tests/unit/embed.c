// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: the base64 a user's binary travels into a guest in
 * (vm/embed.c), byte for byte what base64(1) writes, at every length
 * that ends a group or a line differently; and a path with shell syntax in
 * it is read as a file, never run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/embed.h"
#include "lib/rundir.h"
#include "tap.h"

static char dir[] = "/tmp/unit-embed.XXXXXX";

/* What base64(1) makes of path, or NULL. */
static char *reference(const char *path, size_t *len)
{
	char cmd[256], *out = NULL;
	FILE *p, *o = open_memstream(&out, len);
	int c;

	snprintf(cmd, sizeof(cmd), "base64 %s", path);
	p = popen(cmd, "r");
	while (p && (c = fgetc(p)) != EOF)
		fputc(c, o);
	if (p)
		pclose(p);
	fclose(o);
	return out;
}

static void one_length(size_t n)
{
	char path[128], *mine = NULL, *theirs;
	size_t mine_len, theirs_len;
	FILE *f, *o;
	size_t i;

	snprintf(path, sizeof(path), "%s/in-%zu", dir, n);
	f = fopen(path, "wb");
	for (i = 0; i < n; i++)
		fputc((int)(i * 131 + 7) & 0xff, f);
	fclose(f);
	f = fopen(path, "rb");
	o = open_memstream(&mine, &mine_len);
	base64_encode_file(f, o);
	fclose(o);
	fclose(f);
	theirs = reference(path, &theirs_len);
	if (!theirs || mine_len != theirs_len || memcmp(mine, theirs, mine_len))
		tap_diag("%zu bytes: %zu encoded, base64(1) wrote %zu", n, mine_len, theirs_len);
	tap_result(theirs && mine_len == theirs_len && !memcmp(mine, theirs, mine_len) ? TAP_PASS : TAP_FAIL,
		   "base64 of a file as base64(1) writes it", NULL);
	free(mine);
	free(theirs);
}

int main(void)
{
	static const size_t lengths[] = { 0, 1, 2, 3, 4, 56, 57, 58, 114, 1000, 70001 };
	char path[128], *script = NULL;
	size_t len, i;
	FILE *f;

	if (!mkdtemp(dir))
		return 1;
	tap_plan(sizeof(lengths) / sizeof(lengths[0]) + 2);
	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++)
		one_length(lengths[i]);

	/* A quote and a command substitution in the name: a file like any. A
	 * shell would have run touch in dir, the working directory. */
	if (chdir(dir) < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/it's $(touch ran)", dir);
	f = fopen(path, "wb");
	fputs("abc", f);
	fclose(f);
	f = open_memstream(&script, &len);
	i = embed_binary(f, path, "/tmp/prog");
	fclose(f);
	if (i != 0 || strcmp(script, "base64 -d >/tmp/prog <<'PMEM_BIN_EOF'\nYWJj\nPMEM_BIN_EOF\nchmod +x /tmp/prog\n"))
		tap_diag("got: %s", script);
	tap_result(i == 0 && !strcmp(script, "base64 -d >/tmp/prog <<'PMEM_BIN_EOF'\nYWJj\nPMEM_BIN_EOF\nchmod +x /tmp/prog\n") ?
		   TAP_PASS : TAP_FAIL, "a path with a quote and $(...) is read, nothing run", NULL);
	snprintf(path, sizeof(path), "%s/ran", dir);
	tap_result(access(path, F_OK) ? TAP_PASS : TAP_FAIL, "no command from the path ran", NULL);
	free(script);
	if (run_dir_remove(dir) < 0)
		return 1;
	return tap_exit();
}
