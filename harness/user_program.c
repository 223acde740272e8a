// SPDX-License-Identifier: GPL-2.0
/* A user's program or checker as a static binary: see user_program.h. */
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

/* What the guest can run: ELF64, x86-64, an executable, no interpreter. */
static int check_elf(const char *path, int fd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

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
		if (ph.p_type == PT_INTERP) {
			fprintf(stderr, "crashtest: %s is dynamically linked and the guest has none of its libraries: link it with -static\n",
				path);
			return -1;
		}
	}
	return 0;
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

static int is_elf(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int elf = fd >= 0 && read(fd, magic, 4) == 4 && !memcmp(magic, ELFMAG, SELFMAG);

	if (fd >= 0)
		close(fd);
	return elf;
}

int user_program_build(const char *spec, const char *out, const char *cflags, const char *ldlibs)
{
	const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "gcc";
	char *list = strdup(spec), *src, *save, *cmd = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&cmd, &len);
	int n = 0, ret = -1;

	if (!list || !f)
		abort();
	fprintf(f, "%s -std=gnu11 -O2 -g -static -Iworkloads -o '%s'", cc, out);
	for (src = strtok_r(list, " ", &save); src; src = strtok_r(NULL, " ", &save), n++) {
		if (access(src, R_OK)) {
			fprintf(stderr, "crashtest: cannot read %s\n", src);
			goto out;
		}
		if (is_elf(src)) {
			if (n || strtok_r(NULL, " ", &save)) {
				fprintf(stderr, "crashtest: %s is a binary: give it alone, or give sources\n", src);
				goto out;
			}
			ret = take_binary(src, out);
			goto out;
		}
		if (strchr(src, '\'')) {
			fprintf(stderr, "crashtest: %s: a path with a quote in it cannot be compiled here; rename it\n", src);
			goto out;
		}
		fprintf(f, " '%s'", src);
	}
	if (!n) {
		fprintf(stderr, "crashtest: no program given\n");
		goto out;
	}
	fprintf(f, " workloads/ack.c workloads/channel.c workloads/record.c workloads/cpu_flush.c "
		   "workloads/pmem_map.c %s %s", cflags ? cflags : "", ldlibs ? ldlibs : "");
	fclose(f);
	f = NULL;
	if (system(cmd) != 0)
		fprintf(stderr, "crashtest: compiling %s failed (compiler messages above)\n", spec);
	else
		ret = 0;
out:
	if (f)
		fclose(f);
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
