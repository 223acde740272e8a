// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: what PROGRAM= and CHECK= accept (crash-inject/run/user_program.c):
 * #!/bin/sh scripts as they are and the scripts the guest cannot run
 * refused in one line; C++ sources, alone or with C, built static with
 * libstdc++; dynamic binaries taken when the crash guests' image carries
 * their libraries, refused naming the library otherwise; PMDK programs linked
 * against the shared libraries. Run from the top of the tree.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/rundir.h"
#include "vm/vm.h"
#include "tap.h"
#include "scratch.h"
#include "crash-inject/run/user_program.h"

static char top[] = "/tmp/unit-user-program.XXXXXX";
static char err[8192];

static void put(const char *name, const char *text, int mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, name);
	f = fopen(path, "w");
	if (!f)
		exit(1);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* user_program_build with its stderr caught in err[]. */
static int build_with(const char *spec, const char *out, const char *cflags, const char *ldlibs)
{
	char path[512];
	int saved = dup(2), fd, rc;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/stderr", top);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	fflush(stderr);
	dup2(fd, 2);
	rc = user_program_build(spec, out, cflags, ldlibs);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, err, sizeof(err) - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
	if (err[0])
		tap_diag("%.*s", (int)strcspn(err, "\n"), err);
	return rc;
}

static int build(const char *spec, const char *out, const char *ldlibs)
{
	return build_with(spec, out, NULL, ldlibs);
}

static char *in(const char *name)
{
	return scratch_path(top, name);
}

static int is_static_elf(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int ok = fd >= 0 && pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG);

	for (unsigned int i = 0; ok && i < eh.e_phnum; i++)
		ok = pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) == sizeof(ph) && ph.p_type != PT_INTERP;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* The program's stdout equals want. Run without a shell: paths may hold quotes. */
static int prints(const char *path, const char *want)
{
	char *argv[] = { (char *)path, NULL }, out[600], buf[256] = "";
	posix_spawn_file_actions_t fa;
	int status = -1, fd;
	pid_t pid;
	ssize_t n;

	snprintf(out, sizeof(out), "%s/stdout", top);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (posix_spawn(&pid, path, &fa, NULL, argv, environ) == 0)
		waitpid(pid, &status, 0);
	posix_spawn_file_actions_destroy(&fa);
	fd = open(out, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return status == 0 && !strcmp(buf, want);
}

/* Byte for byte the same, as cmp -s says, without a shell. */
static int same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	int c = 0, same = fa && fb;

	while (same && c != EOF) {
		c = getc(fa);
		same = c == getc(fb);
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* Libraries the fake crash guests' image carries. */
static void manifest(const char *libs)
{
	put(CRASH_INITRAMFS ".libs", libs, 0644);
}

int main(void)
{
	static const char libc[] = "ld-linux-x86-64.so.2\nlibc.so.6\n";
	static const char pmdk[] = "ld-linux-x86-64.so.2\nlibc.so.6\nlibpmemobj.so.1\nlibpmem.so.1\n";
	struct stat st;
	int rc;

	if (!mkdtemp(top))
		return 1;
	setenv("PMEM_BUILD", top, 1);
	tap_plan(15);

	put("w.sh", "#!/bin/sh\nset -e\npmem-ack 0 0 4096\n", 0755);
	rc = build(in("w.sh"), in("w.out"), NULL);
	tap_result(rc == 0 && same_file(in("w.sh"), in("w.out")) && stat(in("w.out"), &st) == 0 &&
				   (st.st_mode & 0777) == 0755 ?
			   TAP_PASS :
			   TAP_FAIL,
		   "a #!/bin/sh script is taken as it is, executable", NULL);

	put("bash.sh", "#!/bin/bash\necho hi\n", 0755);
	rc = build(in("bash.sh"), in("bash.out"), NULL);
	tap_result(rc < 0 && strstr(err, "starts with '#!/bin/bash'") && strstr(err, "start the script with #!/bin/sh") &&
				   access(in("bash.out"), F_OK) ?
			   TAP_PASS :
			   TAP_FAIL,
		   "a #!/bin/bash script is refused: the guest has busybox sh only", NULL);

	put("noexec.sh", "#!/bin/sh\ntrue\n", 0644);
	rc = build(in("noexec.sh"), in("noexec.out"), NULL);
	tap_result(rc < 0 && strstr(err, "not executable: chmod +x it") ? TAP_PASS : TAP_FAIL,
		   "a script without its x bit is refused", NULL);

	put("dos.sh", "#!/bin/sh\r\ntrue\r\n", 0755);
	rc = build(in("dos.sh"), in("dos.out"), NULL);
	tap_result(rc < 0 && strstr(err, "DOS line ends") ? TAP_PASS : TAP_FAIL,
		   "a script with \\r\\n line ends is refused", NULL);

	put("a.c", "int a(void) { return 1; }\n", 0644);
	{
		char two[2 * PATH_MAX];	/* two paths */

		snprintf(two, sizeof(two), "%s %s", in("w.sh"), in("a.c"));
		rc = build(two, in("two.out"), NULL);
	}
	tap_result(rc < 0 && strstr(err, "is a script: give it alone") ? TAP_PASS : TAP_FAIL,
		   "a script among sources is refused", NULL);

	put("hello.cc", "#include <iostream>\n#include <string>\n#include \"ack.h\"\n"
			"int main() { std::string s(\"hello \"); std::cout << s + \"c++\\n\"; return 0; }\n",
	    0644);
	rc = build(in("hello.cc"), in("hello"), NULL);
	tap_result(rc == 0 && is_static_elf(in("hello")) && prints(in("hello"), "hello c++\n") ? TAP_PASS : TAP_FAIL,
		   "a C++ source is built static with libstdc++ and the helpers, and runs", NULL);

	put("half.c", "#include \"record.h\"\nint half(int x) { return x / 2; }\n", 0644);
	put("main.cpp", "#include <cstdio>\nextern \"C\" int half(int);\n"
			"int main() { std::printf(\"%d\\n\", half(84)); return 0; }\n",
	    0644);
	{
		char two[2 * PATH_MAX];	/* two paths */

		snprintf(two, sizeof(two), "%s %s", in("half.c"), in("main.cpp"));
		rc = build(two, in("mixed"), NULL);
	}
	tap_result(rc == 0 && is_static_elf(in("mixed")) && prints(in("mixed"), "42\n") ? TAP_PASS : TAP_FAIL,
		   "C and C++ sources together: C by gcc, C++ by g++, linked by g++", NULL);

	put("bad.cc", "int main() { return undeclared; }\n", 0644);
	rc = build(in("bad.cc"), in("bad"), NULL);
	tap_result(rc < 0 && strstr(err, "compiling") && strstr(err, "failed") ? TAP_PASS : TAP_FAIL,
		   "a C++ source that does not compile fails in one line after the compiler's", NULL);

	unlink(in(CRASH_INITRAMFS ".libs"));
	rc = build("/bin/true", in("true"), NULL);
	tap_result(rc < 0 && strstr(err, "dynamically linked") && strstr(err, "run 'make images'") ? TAP_PASS : TAP_FAIL,
		   "a dynamic binary without the image's library list: make images", NULL);

	manifest(libc);
	rc = build("/bin/true", in("true"), NULL);
	tap_result(rc == 0 && same_file("/bin/true", in("true")) ? TAP_PASS : TAP_FAIL,
		   "a dynamic binary whose libraries the image carries is taken", NULL);

	if (access("/usr/bin/jq", X_OK)) {
		/* set-up installs jq: missing is a broken install, not a skip */
		tap_diag("no /usr/bin/jq: run 'sudo make setup'");
		tap_result(TAP_FAIL, "a dynamic binary needing a library the image lacks is refused", NULL);
	} else {
		rc = build("/usr/bin/jq", in("jq"), NULL);
		tap_result(rc < 0 && strstr(err, "needs libjq.so.1, which the crash guests do not carry: link it with -static") ?
				   TAP_PASS :
				   TAP_FAIL,
			   "a dynamic binary needing a library the image lacks is refused, naming it", NULL);
	}

	manifest(libc);
	put("pool.c", "#include <libpmemobj.h>\n"
		      "int main(void) { return pmemobj_check_version(PMEMOBJ_MAJOR_VERSION, 0) != NULL; }\n",
	    0644);
	rc = build(in("pool.c"), in("pool"), "-lpmemobj");
	tap_result(rc < 0 && strstr(err, "needs libpmemobj.so.1, which the crash guests do not carry") ? TAP_PASS : TAP_FAIL,
		   "a PMDK program is linked dynamically; an image without libpmemobj is named", NULL);

	manifest(pmdk);
	rc = build(in("pool.c"), in("pool"), "-lpmemobj");
	tap_result(rc == 0 && !is_static_elf(in("pool")) && prints(in("pool"), "") ? TAP_PASS : TAP_FAIL,
		   "a PMDK program builds against the shared libraries the image carries, and runs", NULL);

	/* The compile line was one string for sh, which refused a quote. */
	mkdir(in("it's here"), 0755);
	put("it's here/q.c", "#include <stdio.h>\n#include \"ack.h\"\nint main(void) { puts(GREETING); return 0; }\n",
	    0644);
	rc = build_with(in("it's here/q.c"), in("it's here/q"), "-DGREETING='\"hello there\"'", NULL);
	tap_result(rc == 0 && is_static_elf(in("it's here/q")) && prints(in("it's here/q"), "hello there\n") ?
		   TAP_PASS : TAP_FAIL,
		   "a source whose path holds a quote and a space compiles and runs; --cflags split as sh split them",
		   NULL);

	{
		char flags[700];

		snprintf(flags, sizeof(flags), "-O2 $(touch %s)", in("ran"));
		rc = build_with(in("a.c"), in("a"), flags, NULL);
	}
	tap_result(rc < 0 && strstr(err, "command substitution is not run") && access(in("ran"), F_OK) < 0 ?
		   TAP_PASS : TAP_FAIL, "--cflags with a command substitution is refused, and nothing run", NULL);

	if (run_dir_remove(top) < 0)
		tap_diag("could not remove %s", top);
	return tap_failed ? 1 : 0;
}
