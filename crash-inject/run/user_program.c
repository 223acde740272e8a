// SPDX-License-Identifier: GPL-2.0
/* A user's program or checker, made into something the guest runs: see user_program.h. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>
#include <xxhash.h>

#include "../image.h"
#include "../../lib/child.h"
#include "../../lib/make_vars.h"
#include "../../lib/rundir.h"
#include "../../vm/vm.h"
#include "user_program.h"

#define MAX_SOURCES 256
#define SCRIPT_MAX (1 << 20)	/* carried into the guest inside its job script */

static int in_manifest(const char *path, const char *lib)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = !strcmp(line, lib);
	}
	if (f)
		fclose(f);
	return found;
}

/* A library name from the binary, shown in one line: printable or not at all. */
static int printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return 0;
	return 1;
}

/*
 * Every library a dynamic binary needs must be in the crash guests' image:
 * it runs in the writer guest, and the same binary may be a checker.
 */
static int check_libs(const char *path, char libs[][256], int n)
{
	const char *build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	char manifest[PATH_MAX];

	snprintf(manifest, sizeof(manifest), "%s/" CRASH_INITRAMFS ".libs", build);
	if (access(manifest, R_OK)) {
		fprintf(stderr, "crashtest: %s is dynamically linked, and %s (the libraries the crash guests carry) is missing: run 'make images', or link it with -static\n",
			path, manifest);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (!printable(libs[i]) || !in_manifest(manifest, libs[i])) {
			fprintf(stderr, "crashtest: %s is dynamically linked and needs %s, which the crash guests do not carry: link it with -static\n",
				path, printable(libs[i]) ? libs[i] : "a library with an unprintable name");
			return -1;
		}
	}
	return 0;
}

/* A NUL-terminated string of at most 255 bytes at off, or -1. */
static int read_str(int fd, off_t off, char *buf)
{
	ssize_t n = pread(fd, buf, 255, off);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strlen(buf) < (size_t)n ? 0 : -1;
}

/*
 * The libraries a dynamic binary needs: its interpreter's name and every
 * DT_NEEDED, read from PT_DYNAMIC through the PT_LOAD that maps DT_STRTAB.
 * Returns how many, or -1 when the headers do not hold together.
 */
static int needed_libs(int fd, const Elf64_Ehdr *eh, char libs[][256], int max)
{
	Elf64_Phdr ph, dyn = { 0 }, load[64];
	Elf64_Dyn d;
	uint64_t strtab = 0, needed[64];
	int nload = 0, nneeded = 0, n = 0;
	off_t stroff = -1;

	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh->e_phoff + (off_t)i * sizeof(ph)) != sizeof(ph))
			return -1;
		if (ph.p_type == PT_INTERP) {
			char interp[256];
			const char *base;

			if (ph.p_filesz > 255 || read_str(fd, ph.p_offset, interp) < 0)
				return -1;
			base = strrchr(interp, '/');
			snprintf(libs[n++], 256, "%s", base ? base + 1 : interp);
		} else if (ph.p_type == PT_DYNAMIC) {
			dyn = ph;
		} else if (ph.p_type == PT_LOAD && nload < 64) {
			load[nload++] = ph;
		}
	}
	for (uint64_t k = 0; k < dyn.p_filesz / sizeof(d) && k < 4096; k++) {
		if (pread(fd, &d, sizeof(d), dyn.p_offset + k * sizeof(d)) != sizeof(d))
			return -1;
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_STRTAB)
			strtab = d.d_un.d_ptr;
		else if (d.d_tag == DT_NEEDED && nneeded < 64)
			needed[nneeded++] = d.d_un.d_val;
	}
	for (int i = 0; i < nload; i++)
		if (strtab >= load[i].p_vaddr && strtab - load[i].p_vaddr < load[i].p_filesz)
			stroff = (off_t)(load[i].p_offset + (strtab - load[i].p_vaddr));
	if (nneeded && stroff < 0)
		return -1;
	for (int i = 0; i < nneeded && n < max; i++)
		if (read_str(fd, stroff + (off_t)needed[i], libs[n++]) < 0)
			return -1;
	return n;
}

/* What the guest can run: ELF64, x86-64, an executable, static or needing
 * only libraries the guest images carry. */
static int check_elf(const char *path, int fd)
{
	static char libs[66][256];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int dynamic = 0, n;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64 || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > 4096) {
		fprintf(stderr, "crashtest: %s is not an x86-64 ELF executable: give its sources, or build it for x86-64\n",
			path);
		return -1;
	}
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * sizeof(ph)) != sizeof(ph)) {
			fprintf(stderr, "crashtest: %s: its program headers cannot be read\n", path);
			return -1;
		}
		dynamic |= ph.p_type == PT_INTERP;
	}
	if (!dynamic)
		return 0;
	n = needed_libs(fd, &eh, libs, 66);
	if (n < 0) {
		fprintf(stderr, "crashtest: %s is dynamically linked and its dynamic section cannot be read: link it with -static\n",
			path);
		return -1;
	}
	return check_libs(path, libs, n);
}

static int take_binary(const char *path, const char *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		fprintf(stderr, "crashtest: cannot read %s\n", path);
		return -1;
	}
	ret = check_elf(path, fd);
	close(fd);
	if (ret == 0 && (image_copy(path, out) < 0 || chmod(out, 0755) < 0))
		ret = -1;
	return ret;
}

/*
 * A script runs as it is: the guest has busybox sh and nothing else to
 * interpret it, so it must say #!/bin/sh, be text with Unix line ends, and
 * be executable, as it would have to be to run here.
 */
static int take_script(const char *path, const char *out)
{
	char *text = malloc(SCRIPT_MAX + 2), first[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;
	size_t len = 0, eol;
	ssize_t n = 0;

	if (!text)
		abort();
	while (fd >= 0 && len <= SCRIPT_MAX && (n = read(fd, text + len, SCRIPT_MAX + 1 - len)) > 0)
		len += (size_t)n;
	if (fd < 0 || n < 0) {
		fprintf(stderr, "crashtest: cannot read %s\n", path);
		goto out;
	}
	text[len] = '\0';
	eol = strcspn(text, "\n");
	snprintf(first, sizeof(first), "%.*s", (int)(eol < 48 ? eol : 48), text);
	for (char *p = first; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	if (len > SCRIPT_MAX)
		fprintf(stderr, "crashtest: %s is a script over %d MiB: the guest gets it inside its job; keep it small\n",
			path, SCRIPT_MAX >> 20);
	else if (memchr(text, '\0', len))
		fprintf(stderr, "crashtest: %s starts like a script but holds NUL bytes: give a text file, a binary or sources\n",
			path);
	else if (strchr(text, '\r'))
		fprintf(stderr, "crashtest: %s has DOS line ends (\\r\\n), which sh reads as part of each command: convert it with dos2unix\n",
			path);
	else if (strncmp(text, "#!/bin/sh", 9) || (text[9] != '\n' && text[9] != ' ' && text[9] != '\t'))
		fprintf(stderr, "crashtest: %s starts with '%s': the guest has busybox sh and no other interpreter; start the script with #!/bin/sh\n",
			path, first);
	else if (access(path, X_OK))
		fprintf(stderr, "crashtest: %s is a script but not executable: chmod +x it\n", path);
	else if (image_copy(path, out) == 0 && chmod(out, 0755) == 0)
		ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(text);
	return ret;
}

/* ELF, script ("#!") or source, by the file's first bytes. */
enum kind { K_SOURCE, K_ELF, K_SCRIPT };

static enum kind kind_of(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, magic, 4) : -1;

	if (fd >= 0)
		close(fd);
	if (n == 4 && !memcmp(magic, ELFMAG, SELFMAG))
		return K_ELF;
	if (n >= 2 && magic[0] == '#' && magic[1] == '!')
		return K_SCRIPT;
	return K_SOURCE;
}

static int is_cxx(const char *src)
{
	const char *dot = strrchr(src, '.');

	return dot && (!strcmp(dot, ".cc") || !strcmp(dot, ".cpp") || !strcmp(dot, ".cxx"));
}

static int is_c(const char *src)
{
	size_t n = strlen(src);

	return n > 2 && !strcmp(src + n - 2, ".c");
}

/*
 * The files of spec, pointed into list (spec's copy): spec itself when it
 * names a file, so that one path may hold spaces; else its words between
 * spaces. How many, or -1 when there are more than max.
 */
static int spec_files(char *list, char **v, int max)
{
	char *tok, *save;
	int n = 0;

	if (!access(list, F_OK)) {
		v[0] = list;
		return 1;
	}
	for (tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (n == max)
			return -1;
		v[n++] = tok;
	}
	return n;
}

/* How a program is built: words of workloads/user-program.mk, which make includes too. */
#define PROGRAM_MK "workloads/user-program.mk"

enum { MK_CFLAGS, MK_CXXFLAGS, MK_INCLUDE, MK_HELPERS, MK_STATIC, MK_CXXLINK, MK_N };

static const char *const mk_names[MK_N] = {
	[MK_CFLAGS] = "PROGRAM_CFLAGS",	[MK_CXXFLAGS] = "PROGRAM_CXXFLAGS", [MK_INCLUDE] = "PROGRAM_INCLUDE",
	[MK_HELPERS] = "PROGRAM_HELPERS", [MK_STATIC] = "PROGRAM_STATIC",	    [MK_CXXLINK] = "PROGRAM_CXXLINK",
};

/* The words the user gives: $CC, $CXX, --cflags, --ldlibs. */
enum { W_CC, W_CXX, W_CFLAGS, W_LDLIBS, W_N };

struct recipe {
	char **mk[MK_N];
	wordexp_t w[W_N];
	char *const *cc, *const *cxx, *const *cflags, *const *ldlibs;
};

/* A command put together word by word, NULL-terminated. */
struct cmd {
	char **v;
	size_t n, cap;
};

static void add(struct cmd *c, char *word)
{
	if (c->n + 2 > c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
		if (!c->v)
			abort();
	}
	c->v[c->n++] = word;
	c->v[c->n] = NULL;
}

static void add_all(struct cmd *c, char *const *words)
{
	for (; *words; words++)
		add(c, *words);
}

/* Run it, without a shell, its messages on our stderr; emptied for the next. */
static int run(struct cmd *c)
{
	int rc = child_run(c->v, 0, NULL);

	c->n = 0;
	return rc == 0 ? 0 : -1;
}

/*
 * The user's words, split as sh split them on the command line this
 * replaced (quotes, $VAR, globs), but never run: a command substitution,
 * or ; | & < > and the like, are refused.
 */
static int user_words(const char *what, const char *s, wordexp_t *w)
{
	int rc = wordexp(s, w, WRDE_NOCMD);

	if (rc == 0)
		return 0;
	fprintf(stderr, "crashtest: %s \"%s\": %s\n", what, s,
		rc == WRDE_CMDSUB  ? "a command substitution is not run here: give the words it would give" :
		rc == WRDE_BADCHAR ? "holds one of | & ; < > ( ) { } or a newline: give compiler words, not shell" :
				     "cannot be split into words (a quote left open?)");
	return -1;
}

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

static int recipe_load(struct recipe *r, const char *cflags, const char *ldlibs)
{
	char why[512];

	for (int i = 0; i < MK_N; i++) {
		r->mk[i] = make_var(PROGRAM_MK, mk_names[i], why, sizeof(why));
		if (!r->mk[i]) {
			fprintf(stderr, "crashtest: %s\n", why);
			return -1;
		}
	}
	if (user_words("CC", env_or("CC", "gcc"), &r->w[W_CC]) < 0 ||
	    user_words("CXX", env_or("CXX", "g++"), &r->w[W_CXX]) < 0 ||
	    user_words("--cflags", cflags ? cflags : "", &r->w[W_CFLAGS]) < 0 ||
	    user_words("--ldlibs", ldlibs ? ldlibs : "", &r->w[W_LDLIBS]) < 0)
		return -1;
	if (!r->w[W_CC].we_wordc || !r->w[W_CXX].we_wordc) {
		fprintf(stderr, "crashtest: CC or CXX names no compiler\n");
		return -1;
	}
	r->cc = r->w[W_CC].we_wordv;
	r->cxx = r->w[W_CXX].we_wordv;
	r->cflags = r->w[W_CFLAGS].we_wordv;
	r->ldlibs = r->w[W_LDLIBS].we_wordv;
	return 0;
}

static void recipe_free(struct recipe *r)
{
	for (int i = 0; i < MK_N; i++)
		free(r->mk[i]);
	for (int i = 0; i < W_N; i++)
		wordfree(&r->w[i]);
}

/*
 * Debian ships libpmem.a and libpmemobj.a, but not the libndctl.a and
 * libdaxctl.a they need: a program that links PMDK is linked against the
 * shared libraries, which the guest images carry (check_libs() makes sure).
 */
static int links_pmdk(char *const *ldlibs)
{
	for (; *ldlibs; ldlibs++)
		if (!strncmp(*ldlibs, "-lpmem", 6))
			return 1;
	return 0;
}

/* One C or C++ file into the object obj. */
/* Start compiling src into obj (C with $CC, C++ with $CXX): its pid, or -1. */
static pid_t compile_start(struct cmd *c, const struct recipe *r, const char *src, char *obj)
{
	int cxx = is_cxx(src);
	pid_t pid;

	add_all(c, cxx ? r->cxx : r->cc);
	add_all(c, r->mk[cxx ? MK_CXXFLAGS : MK_CFLAGS]);
	add_all(c, r->mk[MK_INCLUDE]);
	add_all(c, r->cflags);
	add(c, "-c");
	add(c, "-o");
	add(c, obj);
	add(c, (char *)src);
	pid = child_start(c->v, 0);
	c->n = 0;
	return pid;
}

/*
 * Every C and C++ file, the helpers too, compiled into tmp at once, each
 * by its own compiler: one gcc for them all compiled one after another,
 * and the helpers go with every program. Then one link: by $CXX with
 * libstdc++ when any file is C++, else by $CC; the --cflags go to it too
 * (-fsanitize, -pthread). Each an argv: no shell, so any path works.
 */
static int compile(const struct recipe *r, char **src, int n, const char *out, const char *tmp)
{
	char *const *helpers = r->mk[MK_HELPERS], **objs = NULL, *file;
	int i, k, nh, nobj = 0, cxxmode = 0, ret = -1, status;
	struct cmd c = { 0 };
	pid_t *pids;

	for (i = 0; i < n; i++)
		cxxmode |= is_cxx(src[i]);
	for (nh = 0; helpers[nh]; nh++)
		;
	objs = calloc((size_t)(nh + n), sizeof(*objs));
	pids = calloc((size_t)(nh + n), sizeof(*pids));
	if (!objs || !pids)
		abort();
	for (k = 0; k < nh + n; k++) {
		file = k < nh ? helpers[k] : src[k - nh];
		if (!is_c(file) && !is_cxx(file))
			continue;
		if (asprintf(&objs[nobj], "%s/%d.o", tmp, nobj) < 0)
			abort();
		pids[nobj] = compile_start(&c, r, file, objs[nobj]);
		nobj++;
	}
	ret = 0;
	for (k = 0; k < nobj; k++) {
		if (pids[k] < 0) {
			ret = -1;
			continue;
		}
		while (waitpid(pids[k], &status, 0) < 0)
			if (errno != EINTR) {
				status = -1;
				break;
			}
		if (status < 0 || child_exit_status(status) != 0)
			ret = -1;
	}
	if (ret < 0)
		goto out;
	add_all(&c, cxxmode ? r->cxx : r->cc);
	add_all(&c, r->mk[cxxmode ? MK_CXXFLAGS : MK_CFLAGS]);
	if (!links_pmdk(r->ldlibs))
		add_all(&c, r->mk[MK_STATIC]);
	if (cxxmode)
		add_all(&c, r->mk[MK_CXXLINK]);
	add_all(&c, r->cflags);
	add(&c, "-o");
	add(&c, (char *)out);
	for (i = 0; i < nobj; i++)
		add(&c, objs[i]);
	/* Objects, archives, assembly: to the link as they are. */
	for (i = 0; i < n; i++)
		if (!is_c(src[i]) && !is_cxx(src[i]))
			add(&c, src[i]);
	add_all(&c, r->ldlibs);
	ret = run(&c);
out:
	for (i = 0; i < nobj; i++)
		free(objs[i]);
	free(objs);
	free(pids);
	free(c.v);
	return ret;
}

int user_program_build(const char *spec, const char *out, const char *cflags, const char *ldlibs)
{
	char *list = strdup(spec), *src[MAX_SOURCES];
	char tmp[] = "/tmp/pmem-program.XXXXXX";
	struct recipe r = { 0 };
	int n, ret = -1, fd;

	if (!list)
		abort();
	n = spec_files(list, src, MAX_SOURCES);
	if (n < 0) {
		fprintf(stderr, "crashtest: more than %d sources: build the program yourself and give the binary\n",
			MAX_SOURCES);
		goto out;
	}
	if (!n) {
		fprintf(stderr, "crashtest: no program given\n");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		enum kind k;

		if (access(src[i], R_OK)) {
			fprintf(stderr, "crashtest: cannot read %s\n", src[i]);
			goto out;
		}
		k = kind_of(src[i]);
		if (k != K_SOURCE && n > 1) {
			fprintf(stderr, "crashtest: %s is a %s: give it alone, or give sources\n", src[i],
				k == K_ELF ? "binary" : "script");
			goto out;
		}
		if (k == K_ELF) {
			ret = take_binary(src[i], out);
			goto out;
		}
		if (k == K_SCRIPT) {
			ret = take_script(src[i], out);
			goto out;
		}
	}
	if (recipe_load(&r, cflags, ldlibs) < 0)
		goto out;
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "crashtest: cannot make a directory for the objects in /tmp\n");
		goto out;
	}
	if (compile(&r, src, n, out, tmp) < 0) {
		fprintf(stderr, "crashtest: compiling %s failed (compiler messages above)\n", spec);
	} else if ((fd = open(out, O_RDONLY | O_CLOEXEC)) >= 0) {
		ret = check_elf(out, fd);
		close(fd);
	}
	run_dir_remove(tmp);
out:
	recipe_free(&r);
	free(list);
	return ret;
}

int user_program_hash(const char *spec, char *hex, size_t len)
{
	XXH3_state_t *st = XXH3_createState();
	char *list = strdup(spec), *src[MAX_SOURCES], buf[65536];
	int ret = 0, nfiles;

	if (!st || !list)
		abort();
	XXH3_64bits_reset(st);
	nfiles = spec_files(list, src, MAX_SOURCES);
	ret = nfiles < 0 ? -1 : 0;
	for (int i = 0; i < nfiles && !ret; i++) {
		int fd = open(src[i], O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0) {
			ret = -1;
			break;
		}
		/* The name too: two sources swapped are another program. */
		XXH3_64bits_update(st, src[i], strlen(src[i]) + 1);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			XXH3_64bits_update(st, buf, (size_t)n);
		ret = n < 0 ? -1 : 0;
		close(fd);
	}
	snprintf(hex, len, "%016llx", (unsigned long long)XXH3_64bits_digest(st));
	XXH3_freeState(st);
	free(list);
	return ret;
}
