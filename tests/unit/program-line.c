// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: a PROGRAM or RECOVER command line taken apart
 * (crash-inject/run/program_line.c): the sources or the one program, the
 * arguments split as sh splits them, the bare name found in the PMDK
 * directory, and the lines refused; then the arguments written back as sh
 * words, which sh must read as the same words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash-inject/run/program_line.h"
#include "tap.h"

static struct program_line pl;

/* line parses into spec and the argc arguments listed in args ("|" between). */
static void parses(const char *line, const char *bin, const char *spec, int argc, const char *args, const char *name)
{
	char joined[1024] = "";
	int ok = program_line_parse("PROGRAM", line, bin, &pl) == 0;

	for (int i = 0; ok && i < pl.argc; i++)
		snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s", i ? "|" : "", pl.argv[i]);
	ok = ok && !strcmp(pl.spec, spec) && pl.argc == argc && !strcmp(joined, args) && !pl.argv[pl.argc];
	if (!ok)
		tap_diag("'%s': spec '%s', %d args '%s'", line, pl.spec, pl.argc, joined);
	tap_result(ok ? TAP_PASS : TAP_FAIL, name, NULL);
}

static void refused(const char *line, const char *name)
{
	int ok;

	fflush(stderr);
	ok = program_line_parse("RECOVER", line, NULL, &pl) < 0;
	tap_result(ok ? TAP_PASS : TAP_FAIL, name, NULL);
}

int main(void)
{
	char dir[] = "/tmp/unit-program-line.XXXXXX", path[256];
	static char cmd[16384];
	char *sh = NULL;
	size_t len = 0;
	FILE *f;
	int ok;

	tap_plan(12);
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/data_store", dir);
	f = fopen(path, "w");
	if (!f || fclose(f) || chmod(path, 0755))
		return 1;

	parses("data_store btree pool.obj 200", dir, path, 3, "btree|pool.obj|200",
	       "a bare name is found in the PMDK directory, its arguments follow");
	parses("data_store btree", NULL, "data_store", 1, "btree", "without the directory, the name stays as given");
	parses("./nowhere/prog x", dir, "./nowhere/prog", 1, "x", "a path is never looked up");
	parses("a.c b.cc --n 3", NULL, "a.c b.cc", 2, "--n|3", "the leading sources, then the arguments");
	parses("main.c", NULL, "main.c", 0, "", "one source, no argument");
	parses("p 'a b' \"c'd\" e\\ f \"x\\\"y\" ''", NULL, "p", 5, "a b|c'd|e f|x\"y|",
	       "quotes and backslashes as sh reads them, an empty word kept");
	parses("p  $HOME *  `id`", NULL, "p", 3, "$HOME|*|`id`", "nothing is expanded");
	parses(path, dir, path, 0, "", "a line that names a file is that file (a path may hold spaces)");
	refused("p 'open", "a quote not closed is refused");
	refused("   ", "an empty line is refused");

	/* Written back for the guest's sh: the same words come out. */
	program_line_parse("PROGRAM", "p 'a b' \"c'd\" e\\ f '' '$x'", NULL, &pl);
	f = open_memstream(&sh, &len);
	program_line_args(f, &pl);
	fclose(f);
	/* As crash-writer.sh does: the words in a variable, then eval. */
	{
		char *argv[] = { "sh", "-c", "eval \"set -- $1\"; printf '[%s]' \"$@\"", "sh", sh, NULL }, out[256] = "";
		int fds[2];
		pid_t pid;

		if (pipe(fds) < 0)
			return 1;
		pid = fork();
		if (pid == 0) {
			dup2(fds[1], 1);
			execv("/bin/sh", argv);
			_exit(127);
		}
		close(fds[1]);
		ok = read(fds[0], out, sizeof(out) - 1) > 0;
		close(fds[0]);
		waitpid(pid, NULL, 0);
		ok = ok && !strcmp(out, "[a b][c'd][e f][][$x]");
		if (!ok)
			tap_diag("sh read '%s' as %s", sh, out);
	}
	tap_result(ok ? TAP_PASS : TAP_FAIL, "the arguments as sh words: sh reads back the same five", NULL);
	free(sh);

	snprintf(cmd, sizeof(cmd), "p %0900d %0900d %0900d %0900d %0900d %0900d %0900d %0900d %0900d %0900d", 1, 2, 3, 4,
		 5, 6, 7, 8, 9, 10);
	refused(cmd, "a line longer than 8 KiB of words is refused");
	unlink(path);
	rmdir(dir);
	return tap_exit();
}
