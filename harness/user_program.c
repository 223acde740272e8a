// SPDX-License-Identifier: GPL-2.0
/* A user's program or checker, made into something the guest runs: see user_program.h. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "../crash-inject/image.h"
#include "user_program.h"

#define MAX_SOURCES 256
#define SCRIPT_MAX (1 << 20)	/* carried into the guest inside its job script */

/* The helpers every program built here is linked with (workloads/). */
static const char *const helpers[] = { "workloads/ack.c", "workloads/channel.c", "workloads/record.c",
				       "workloads/cpu_flush.c", "workloads/pmem_map.c" };

/* The images whose libraries a dynamic program may use: it runs in the
 * writer guest, and the same binary may be a checker. */
static const struct {
	const char *manifest, *guest;
} images[] = {
	{ "initramfs.cpio.libs", "writer" },
	{ "initramfs-checker.cpio.libs", "checker" },
};

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

/* Every library a dynamic binary needs must be in both guest images. */
static int check_libs(const char *path, char libs[][256], int n)
{
	const char *build = getenv("PMEM_BUILD") ? getenv("PMEM_BUILD") : "build";
	char manifest[4096];

	for (size_t g = 0; g < sizeof(images) / sizeof(images[0]); g++) {
		snprintf(manifest, sizeof(manifest), "%s/%s", build, images[g].manifest);
		if (access(manifest, R_OK)) {
			fprintf(stderr, "crashtest: %s is dynamically linked, and %s (the libraries the %s guest carries) is missing: run 'make images', or link it with -static\n",
				path, manifest, images[g].guest);
			return -1;
		}
		for (int i = 0; i < n; i++) {
			if (!printable(libs[i]) || !in_manifest(manifest, libs[i])) {
				fprintf(stderr, "crashtest: %s is dynamically linked and needs %s, which the %s guest does not carry: link it with -static\n",
					path, printable(libs[i]) ? libs[i] : "a library with an unprintable name",
					images[g].guest);
				return -1;
			}
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
 * Debian ships libpmem.a and libpmemobj.a, but not the libndctl.a and
 * libdaxctl.a they need: a program that links PMDK is linked against the
 * shared libraries, which the guest images carry (check_libs() makes sure).
 */
static int links_pmdk(const char *ldlibs)
{
	const char *p = ldlibs;

	while (p && (p = strstr(p, "-lpmem"))) {
		if (p == ldlibs || p[-1] == ' ' || p[-1] == '\t')
			return 1;
		p++;
	}
	return 0;
}

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

/*
 * The compiler command for sources. C alone: one $CC line, as always. With
 * C++: each C file (the helpers too) compiled by $CC and each C++ file by
 * $CXX into tmp, then linked by $CXX with libstdc++.
 */
static void compile_cmd(FILE *f, char **src, int n, const char *out, const char *tmp, const char *cflags,
			const char *ldlibs)
{
	const char *cc = env_or("CC", "gcc"), *cxx = env_or("CXX", "g++");
	const char *link = links_pmdk(ldlibs) ? "" : " -static";
	int i, obj = 0, cxxmode = 0;

	cflags = cflags ? cflags : "";
	ldlibs = ldlibs ? ldlibs : "";
	for (i = 0; i < n; i++)
		cxxmode |= is_cxx(src[i]);
	if (!cxxmode) {
		fprintf(f, "%s -std=gnu11 -O2 -g%s -Iworkloads -o '%s'", cc, link, out);
		for (i = 0; i < n; i++)
			fprintf(f, " '%s'", src[i]);
		for (size_t h = 0; h < sizeof(helpers) / sizeof(helpers[0]); h++)
			fprintf(f, " %s", helpers[h]);
		fprintf(f, " %s %s", cflags, ldlibs);
		return;
	}
	for (size_t h = 0; h < sizeof(helpers) / sizeof(helpers[0]); h++)
		fprintf(f, "%s -std=gnu11 -O2 -g -Iworkloads %s -c -o '%s/%d.o' %s && ", cc, cflags, tmp, obj++,
			helpers[h]);
	for (i = 0; i < n; i++) {
		if (is_c(src[i]))
			fprintf(f, "%s -std=gnu11 -O2 -g -Iworkloads %s -c -o '%s/%d.o' '%s' && ", cc, cflags, tmp,
				obj++, src[i]);
		else if (is_cxx(src[i]))
			fprintf(f, "%s -O2 -g -Iworkloads %s -c -o '%s/%d.o' '%s' && ", cxx, cflags, tmp, obj++,
				src[i]);
	}
	fprintf(f, "%s -O2 -g%s -static-libstdc++ -static-libgcc -o '%s'", cxx, link, out);
	for (i = 0; i < obj; i++)
		fprintf(f, " '%s/%d.o'", tmp, i);
	/* Objects, archives, assembly: to the link as they are. */
	for (i = 0; i < n; i++)
		if (!is_c(src[i]) && !is_cxx(src[i]))
			fprintf(f, " '%s'", src[i]);
	fprintf(f, " %s", ldlibs);
}

static void remove_tmp(const char *tmp)
{
	char obj[4200];

	for (int i = 0; i < MAX_SOURCES + 8; i++) {
		snprintf(obj, sizeof(obj), "%s/%d.o", tmp, i);
		unlink(obj);
	}
	rmdir(tmp);
}

int user_program_build(const char *spec, const char *out, const char *cflags, const char *ldlibs)
{
	char *list = strdup(spec), *src[MAX_SOURCES], *tok, *save, *cmd = NULL;
	char tmp[] = "/tmp/pmem-program.XXXXXX";
	size_t len = 0;
	FILE *f = NULL;
	int n = 0, ret = -1, fd;

	if (!list)
		abort();
	for (tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (n == MAX_SOURCES) {
			fprintf(stderr, "crashtest: more than %d sources: build the program yourself and give the binary\n",
				MAX_SOURCES);
			goto out;
		}
		src[n++] = tok;
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
		if (strchr(src[i], '\'')) {
			fprintf(stderr, "crashtest: %s: a path with a quote in it cannot be compiled here; rename it\n",
				src[i]);
			goto out;
		}
	}
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "crashtest: cannot make a directory for the objects in /tmp\n");
		goto out;
	}
	f = open_memstream(&cmd, &len);
	if (!f)
		abort();
	compile_cmd(f, src, n, out, tmp, cflags, ldlibs);
	fclose(f);
	if (system(cmd) != 0) {
		fprintf(stderr, "crashtest: compiling %s failed (compiler messages above)\n", spec);
	} else if ((fd = open(out, O_RDONLY | O_CLOEXEC)) >= 0) {
		ret = check_elf(out, fd);
		close(fd);
	}
	remove_tmp(tmp);
out:
	free(cmd);
	free(list);
	return ret;
}

int user_program_hash(const char *spec, char *hex, size_t len)
{
	XXH3_state_t *st = XXH3_createState();
	char *list = strdup(spec), *src, *save, buf[65536];
	int ret = 0;

	if (!st || !list)
		abort();
	XXH3_64bits_reset(st);
	for (src = strtok_r(list, " ", &save); src && !ret; src = strtok_r(NULL, " ", &save)) {
		int fd = open(src, O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0) {
			ret = -1;
			break;
		}
		/* The name too: two sources swapped are another program. */
		XXH3_64bits_update(st, src, strlen(src) + 1);
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
