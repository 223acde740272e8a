// SPDX-License-Identifier: GPL-2.0
/* Names for guest PCs: see symbolize.h. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbolize.h"

/* Kernel text and data have bit 63 set (4- and 5-level paging alike). */
#define KERNEL_BASE 0x8000000000000000ULL

extern char **environ;

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void symbolizer_init(struct symbolizer *s, const char *program, uint64_t bias, const char *system_map)
{
	FILE *f = system_map ? fopen(system_map, "r") : NULL;
	char line[256], type, name[128];
	unsigned long long addr;
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	s->program = program;
	s->program_bias = bias;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3 || !strchr("tTwW", type))
			continue;
		if (s->nksyms == cap) {
			cap = cap ? cap * 2 : 8192;
			s->ksyms = realloc(s->ksyms, cap * sizeof(*s->ksyms));
			if (!s->ksyms)
				abort();
		}
		s->ksyms[s->nksyms].addr = addr;
		snprintf(s->ksyms[s->nksyms].name, sizeof(s->ksyms[0].name), "%s", name);
		s->nksyms++;
	}
	if (f)
		fclose(f);
	if (s->nksyms)
		qsort(s->ksyms, s->nksyms, sizeof(*s->ksyms), ksym_cmp);
}

static void remember2(struct symbolizer *s, uint64_t pc, uint64_t caller, const char *name)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->pcs = realloc(s->pcs, s->cap * sizeof(*s->pcs));
		s->names = realloc(s->names, s->cap * sizeof(*s->names));
		s->callers = realloc(s->callers, s->cap * sizeof(*s->callers));
		if (!s->pcs || !s->names || !s->callers)
			abort();
	}
	s->pcs[s->n] = pc;
	s->callers[s->n] = caller;
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
	s->n++;
}

static const char *known2(const struct symbolizer *s, uint64_t pc, uint64_t caller)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->pcs[i] == pc && s->callers[i] == caller)
			return s->names[i];
	return NULL;
}

static const char *known(const struct symbolizer *s, uint64_t pc)
{
	return known2(s, pc, 0);
}

static void remember(struct symbolizer *s, uint64_t pc, const char *name)
{
	remember2(s, pc, 0, name);
}

/* addr2line -f -s -e PROGRAM ADDR...: two lines per address. No shell. */
void symbolizer_prefetch(struct symbolizer *s, const uint64_t *pcs, size_t n)
{
	char **argv = calloc(n + 8, sizeof(*argv)); /* 7 options, the PCs, NULL */
	char (*hex)[24] = calloc(n ? n : 1, sizeof(*hex));
	posix_spawn_file_actions_t fa;
	int pipefd[2], k = 0;
	size_t asked = 0;
	pid_t pid;
	FILE *out;

	if (!s->program || !argv || !hex || pipe(pipefd) < 0) {
		free(argv);
		free(hex);
		return;
	}
	argv[k++] = "addr2line";
	argv[k++] = "-a";	/* each answer starts with its address */
	argv[k++] = "-f";
	argv[k++] = "-i";	/* inlined frames too: name the source, not an intrinsic */
	argv[k++] = "-s";
	argv[k++] = "-e";
	argv[k++] = (char *)s->program;
	for (size_t i = 0; i < n; i++) {
		if (pcs[i] >= KERNEL_BASE || known(s, pcs[i]))
			continue;
		snprintf(hex[asked], sizeof(hex[0]), "0x%" PRIx64, pcs[i] - s->program_bias);
		argv[k++] = hex[asked++];
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	if (!asked || posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ) != 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		posix_spawn_file_actions_destroy(&fa);
		free(argv);
		free(hex);
		return;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	/* Per address: "0x...", then (function, file:line) from the innermost
	 * inlined frame out. The first frame outside a header is the name. */
	{
		char line[2][200], best[160] = "", first[160] = "";
		uint64_t at = 0;
		int have = 0;

		while (out && fgets(line[0], sizeof(line[0]), out)) {
			line[0][strcspn(line[0], "\n")] = '\0';
			if (!strncmp(line[0], "0x", 2)) {
				if (have)
					remember(s, at + s->program_bias, best[0] ? best : first);
				at = strtoull(line[0], NULL, 16);
				have = 1;
				best[0] = first[0] = '\0';
				continue;
			}
			if (!have || !fgets(line[1], sizeof(line[1]), out))
				break;
			line[1][strcspn(line[1], "\n")] = '\0';
			line[1][strcspn(line[1], " ")] = '\0'; /* drop "(discriminator N)" */
			{
				char name[160];
				const char *colon = strrchr(line[1], ':');
				int header = colon && colon - line[1] > 2 && !strncmp(colon - 2, ".h", 2);

				if (!strncmp(line[1], "??", 2))
					snprintf(name, sizeof(name), "%s+0x%" PRIx64, strcmp(line[0], "??") ? line[0] : "user",
						 at + s->program_bias);
				else
					snprintf(name, sizeof(name), "%.80s (%.60s)", line[1], line[0]);
				if (!first[0])
					snprintf(first, sizeof(first), "%s", name);
				if (!best[0] && !header && strncmp(line[1], "??", 2))
					snprintf(best, sizeof(best), "%s", name);
			}
		}
		if (have)
			remember(s, at + s->program_bias, best[0] ? best : first);
	}
	if (out)
		fclose(out);
	waitpid(pid, NULL, 0);
	free(argv);
	free(hex);
}

const char *symbolize(struct symbolizer *s, uint64_t pc)
{
	const char *name = known(s, pc);
	char buf[160];

	if (name)
		return name;
	if (pc < KERNEL_BASE) {
		symbolizer_prefetch(s, &pc, 1);
		if ((name = known(s, pc)))
			return name;
		snprintf(buf, sizeof(buf), "user 0x%" PRIx64, pc);
	} else if (s->nksyms && pc >= s->ksyms[0].addr) {
		size_t lo = 0, hi = s->nksyms;

		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;

			if (s->ksyms[mid].addr <= pc)
				lo = mid;
			else
				hi = mid;
		}
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, s->ksyms[lo].name, pc - s->ksyms[lo].addr);
	} else {
		snprintf(buf, sizeof(buf), "kernel 0x%" PRIx64, pc);
	}
	remember(s, pc, buf);
	return known(s, pc);
}

void symbolizer_free(struct symbolizer *s)
{
	free(s->ksyms);
	free(s->pcs);
	free(s->callers);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

/* A libc string routine that stored on its caller's behalf: named
 * "file:line (func)", "func+0x..." (no line table) or "user+0x..." . */
static int is_copy_routine(const char *name)
{
	const char *fn = strrchr(name, '(');

	if (!strncmp(name, "user+0x", 7))
		return 1; /* a shared library: libc's memcpy for our writer */
	/* A static program's libc has no line table: "__memcpy_avx_...+0x..." */
	fn = fn ? fn + 1 : name;
	while (*fn == '_')
		fn++;
	/* Not every mem*: PMDK's memblock_*() store on their own behalf. */
	return !strncmp(fn, "memcpy", 6) || !strncmp(fn, "memmove", 7) || !strncmp(fn, "memset", 6) ||
	       !strncmp(fn, "mempcpy", 7) || !strncmp(fn, "str", 3) || !strncmp(fn, "wmem", 4);
}

const char *symbolize_store(struct symbolizer *s, uint64_t pc, uint64_t caller)
{
	const char *name = symbolize(s, pc);
	char site[160], buf[160], *p;

	if (pc >= KERNEL_BASE || !caller || caller >= KERNEL_BASE || !is_copy_routine(name))
		return name;
	if ((p = (char *)known2(s, pc, caller)))
		return p;
	snprintf(buf, sizeof(buf), "%s", name);
	p = strrchr(buf, '(');
	if (p && p[1]) {
		p[strcspn(p, ")")] = '\0';
		p++;
	} else {
		p = "a shared library";
	}
	snprintf(site, sizeof(site), "%.100s via %.50s", symbolize(s, caller), p);
	remember2(s, pc, caller, site);
	return known2(s, pc, caller);
}
