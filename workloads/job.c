// SPDX-License-Identifier: GPL-2.0
/*
 * Job files: see job.h. Options are data; adding one is one table row.
 * fio's bare boolean keys ("time_based") are accepted by the line reader
 * handed to libinih, which turns a line holding only a key into "key=1".
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "persist/persist.h"
#include "pmem_map.h"

enum opt_type { OPT_STR, OPT_UINT, OPT_ULL, OPT_SIZE, OPT_BOOL, OPT_ENUM };

struct opt {
	const char *name;
	enum opt_type type;
	size_t off;
	size_t len;			/* OPT_STR: buffer size */
	const char *def;
	unsigned long long min, max;	/* numeric bounds (max 0: none) */
	const char *const *choices;	/* OPT_ENUM: index = value */
	const char *(*check)(const char *value);	/* OPT_STR: NULL if fine */
	const char *help;
};

static const char *const rw_choices[] = { "write", "randwrite", "rw", "randrw", NULL };
static const char *const prealloc_choices[] = { "none", "fallocate", "write", NULL };
static const char *const fault_choices[] = { "pte", "pmd", NULL };

static const char *check_map(const char *v)
{
	return map_mode_find(v) ? NULL : "shared, sync, aware, sync+aware";
}

static const char *check_persist(const char *v)
{
	return persist_find(v) ? NULL : persist_names();
}

static const char *check_ioengine(const char *v)
{
	/* The writer is itself an mmap engine; the key is accepted for fio files. */
	return strcmp(v, "mmap") ? "mmap (this writer runs mmap jobs only)" : NULL;
}

#define O(f) offsetof(struct job, f), sizeof(((struct job *)0)->f)
static const struct opt options[] = {
	{ "rw", OPT_ENUM, O(rw), "write", 0, 0, rw_choices, NULL,
	  "I/O pattern: write, randwrite, rw (readwrite), randrw" },
	{ "readwrite", OPT_ENUM, O(rw), NULL, 0, 0, rw_choices, NULL, "alias of rw" },
	{ "bs", OPT_SIZE, O(bs), "4k", 1, 1ULL << 30, NULL, NULL, "bytes per I/O (k, m, g suffixes)" },
	{ "size", OPT_SIZE, O(size), "16m", 4096, 1ULL << 40, NULL, NULL, "file size per job" },
	{ "filename", OPT_STR, O(filename), "", 0, 0, NULL, NULL, "file to map (default DIR/JOB.N.0)" },
	{ "directory", OPT_STR, O(directory), ".", 0, 0, NULL, NULL, "directory for job files" },
	{ "numjobs", OPT_UINT, O(numjobs), "1", 1, 64, NULL, NULL, "processes running this job" },
	{ "loops", OPT_UINT, O(loops), "1", 1, 1000000, NULL, NULL, "passes over the file" },
	{ "runtime", OPT_ULL, O(runtime), "0", 0, 86400, NULL, NULL, "seconds to run at most (0: no limit)" },
	{ "time_based", OPT_BOOL, O(time_based), "0", 0, 1, NULL, NULL, "repeat passes until runtime" },
	{ "fsync", OPT_UINT, O(fsync_every), "0", 0, 1U << 30, NULL, NULL, "fsync every N writes" },
	{ "fdatasync", OPT_UINT, O(fdatasync_every), "0", 0, 1U << 30, NULL, NULL, "fdatasync every N writes" },
	{ "rwmixread", OPT_UINT, O(rwmixread), "50", 0, 100, NULL, NULL, "percent reads in rw/randrw" },
	{ "randseed", OPT_ULL, O(randseed), "1", 0, 0, NULL, NULL, "seed of the random offsets" },
	{ "map", OPT_STR, O(map), "shared", 0, 0, NULL, check_map,
	  "mapping mode: shared, sync, aware, sync+aware" },
	{ "persist", OPT_STR, O(persist), "none", 0, 0, NULL, check_persist,
	  "persistence method: none, msync, fsync, clwb, ntstore, libpmem" },
	{ "persist_every", OPT_UINT, O(persist_every), "1", 1, 1U << 30, NULL, NULL,
	  "writes per persistence call" },
	{ "prealloc", OPT_ENUM, O(prealloc), "none", 0, 0, prealloc_choices, NULL,
	  "none (hole-filling faults), fallocate (unwritten extents), write (written + fsynced)" },
	{ "fault_size", OPT_ENUM, O(fault_size), "pte", 0, 0, fault_choices, NULL,
	  "pte forces 4 KiB faults (MADV_NOHUGEPAGE), pmd allows 2 MiB faults" },
	{ "verify", OPT_BOOL, O(verify), "0", 0, 1, NULL, NULL,
	  "write verifiable records and check them after the run" },
	{ "offset", OPT_SIZE, O(offset), "0", 0, 1ULL << 40, NULL, NULL,
	  "start of the I/O region; with filename= and offset>0 the file is kept, not recreated" },
	{ "ioengine", OPT_STR, 0, 0, "mmap", 0, 0, NULL, check_ioengine, "accepted: mmap" },
	{ NULL },
};
#undef O

const char *rw_name(int rw)
{
	return rw_choices[rw];
}

void job_options_help(FILE *f)
{
	const struct opt *o;

	for (o = options; o->name; o++)
		fprintf(f, "  %-14s %s%s%s%s\n", o->name, o->help, o->def ? " [default " : "",
			o->def ? o->def : "", o->def ? "]" : "");
}

static unsigned int edit_distance(const char *a, const char *b)
{
	unsigned int d[64][64], i, j, la = strlen(a), lb = strlen(b);

	if (la >= 64 || lb >= 64)
		return 64;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			unsigned int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			unsigned int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;

			d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
	return d[la][lb];
}

static const struct opt *closest_option(const char *name)
{
	const struct opt *o, *best = NULL;
	unsigned int bestd = 4;

	for (o = options; o->name; o++) {
		unsigned int d = edit_distance(name, o->name);

		if (d < bestd) {
			bestd = d;
			best = o;
		}
	}
	return best;
}

/* "4k", "2m", "1g" with fio's default 1024 base. */
static int parse_size(const char *v, unsigned long long *out)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || end == v)
		return -1;
	switch (tolower((unsigned char)*end)) {
	case '\0': break;
	case 'k': n <<= 10; end++; break;
	case 'm': n <<= 20; end++; break;
	case 'g': n <<= 30; end++; break;
	default: return -1;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	*out = n;
	return *end ? -1 : 0;
}

struct parse_ctx {
	struct job_file *jf;
	const char *source;
	int line;
	int failed;
	/* the string being parsed, for ini_parse_stream over a string */
	const char *text;
};

static void fail(struct parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct parse_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed++)
		return; /* one line: the first error */
	fprintf(stderr, "%s:%d: ", c->source, c->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int set_option(struct parse_ctx *c, struct job *j, const struct opt *o, const char *v)
{
	void *field = (char *)j + o->off;
	unsigned long long n = 0;
	const char *want;
	char *end;
	int i;

	switch (o->type) {
	case OPT_STR:
		if (o->check && (want = o->check(v))) {
			fail(c, "%s=%s is not valid: expected %s", o->name, v, want);
			return -1;
		}
		if (o->len && strlen(v) >= o->len) {
			fail(c, "%s=%s is too long (at most %zu characters)", o->name, v, o->len - 1);
			return -1;
		}
		if (o->len)
			strcpy(field, v);
		return 0;
	case OPT_ENUM:
		for (i = 0; o->choices[i]; i++)
			if (!strcmp(v, o->choices[i]) ||
			    (o->choices == rw_choices && i == RW_READWRITE && !strcmp(v, "readwrite"))) {
				*(int *)field = i;
				return 0;
			}
		fail(c, "%s=%s is not valid: %s", o->name, v, o->help);
		return -1;
	case OPT_BOOL:
		if (strcmp(v, "0") && strcmp(v, "1")) {
			fail(c, "%s=%s is not valid: expected 0 or 1", o->name, v);
			return -1;
		}
		*(int *)field = v[0] == '1';
		return 0;
	case OPT_SIZE:
		if (parse_size(v, &n) < 0) {
			fail(c, "%s=%s is not a size: %s", o->name, v, o->help);
			return -1;
		}
		break;
	case OPT_UINT:
	case OPT_ULL:
		errno = 0;
		n = strtoull(v, &end, 0);
		if (errno || end == v || *end || v[0] == '-') {
			fail(c, "%s=%s is not a number: %s", o->name, v, o->help);
			return -1;
		}
		break;
	}
	if (n < o->min || (o->max && n > o->max)) {
		fail(c, "%s=%s is out of range [%llu, %llu]: %s", o->name, v, o->min, o->max, o->help);
		return -1;
	}
	if (o->type == OPT_UINT)
		*(unsigned int *)field = n;
	else
		*(unsigned long long *)field = n;
	return 0;
}

static void set_defaults(struct job *j)
{
	const struct opt *o;
	struct parse_ctx c = { .source = "defaults" };

	memset(j, 0, sizeof(*j));
	for (o = options; o->name; o++)
		if (o->def && o->len)
			set_option(&c, j, o, o->def);
}

/* The job of a section, made from [global] as it stands when first seen. */
static struct job *section_job(struct parse_ctx *c, const char *section)
{
	struct job_file *jf = c->jf;

	if (!strcmp(section, "global"))
		return &jf->global;
	if (!jf->njobs || strcmp(jf->jobs[jf->njobs - 1].name, section)) {
		if (jf->njobs == JOB_MAX) {
			fail(c, "more than %d job sections", JOB_MAX);
			return NULL;
		}
		jf->jobs[jf->njobs] = jf->global;
		snprintf(jf->jobs[jf->njobs].name, JOB_NAME_MAX, "%s", section);
		jf->njobs++;
	}
	return &jf->jobs[jf->njobs - 1];
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_ctx *c = user;
	const struct opt *o;
	struct job *j;

	if (!name[0]) {
		fail(c, "a value without a key ('=%s')", value);
		return 0;
	}
	if (!section[0]) {
		fail(c, "%s=%s is outside any section: put it under [global] or a [job]", name, value);
		return 0;
	}
	j = section_job(c, section);
	if (!j)
		return 0;
	for (o = options; o->name; o++)
		if (!strcmp(o->name, name))
			return set_option(c, j, o, value) == 0;
	o = closest_option(name);
	fail(c, "unknown option '%s'%s%s%s (pmem-writer --help lists them)", name,
	     o ? "; did you mean '" : "", o ? o->name : "", o ? "'?" : "");
	return 0;
}

/* libinih reader: count lines, and turn fio's bare "key" into "key=1". */
static char *reader(char *str, int num, void *stream)
{
	struct parse_ctx *c = stream;
	const char *nl;
	size_t len, t;

	if (!*c->text)
		return NULL;
	nl = strchr(c->text, '\n');
	len = nl ? (size_t)(nl - c->text + 1) : strlen(c->text);
	if (len >= (size_t)num - 3)
		len = num - 3;
	memcpy(str, c->text, len);
	str[len] = '\0';
	c->text += len;
	c->line++;
	for (t = 0; str[t] == ' ' || str[t] == '\t'; t++)
		;
	/* fio allows a section without keys; libinih only reports keys. */
	if (str[t] == '[') {
		size_t head = strcspn(str + t, "\r\n");
		const char *close = memchr(str + t, ']', head);
		size_t namelen = close ? (size_t)(close - (str + t) - 1) : 0;
		char name[JOB_NAME_MAX];

		/* Say what is wrong on this line, not on the next key. */
		if (!close)
			fail(c, "section header '%.*s' has no closing ']'", (int)head, str + t);
		else if (!namelen)
			fail(c, "empty section name '[]'");
		else if (namelen >= JOB_NAME_MAX)
			fail(c, "section name '%.*s' is longer than %d characters", (int)namelen,
			     str + t + 1, JOB_NAME_MAX - 1);
		else {
			memcpy(name, str + t + 1, namelen);
			name[namelen] = '\0';
			section_job(c, name);
		}
		return str;
	}
	if (isalpha((unsigned char)str[t]) && !strpbrk(str, "=:[;#")) {
		size_t end = strcspn(str, "\r\n");

		while (end > t && (str[end - 1] == ' ' || str[end - 1] == '\t'))
			end--;
		strcpy(str + end, "=1\n");
	}
	return str;
}

static int parse(const char *source, const char *text, struct job_file *jf)
{
	struct parse_ctx c = { .jf = jf, .source = source, .text = text };
	int ret;
	int i;

	memset(jf, 0, sizeof(*jf));
	set_defaults(&jf->global);
	snprintf(jf->global.name, JOB_NAME_MAX, "global");
	ret = ini_parse_stream(reader, &c, handler, &c);
	if (ret > 0 && !c.failed) {
		c.line = ret;
		fail(&c, "not an INI line (expected [section] or key=value)");
	}
	if (c.failed)
		return -1;
	if (!jf->njobs) {
		fprintf(stderr, "%s: no job sections (add one, e.g. [write-4k])\n", source);
		return -1;
	}
	for (i = 0; i < jf->njobs; i++) {
		struct job *j = &jf->jobs[i];

		if (j->bs > j->size) {
			fprintf(stderr, "%s: [%s] bs=%llu is larger than size=%llu\n", source, j->name,
				j->bs, j->size);
			return -1;
		}
		if (j->time_based && !j->runtime) {
			fprintf(stderr, "%s: [%s] time_based needs runtime=SECONDS\n", source, j->name);
			return -1;
		}
	}
	return 0;
}

int job_file_parse_string(const char *text, struct job_file *jf)
{
	return parse("<string>", text, jf);
}

/* A job file is text of at most this much; anything larger is not one. */
#define JOB_FILE_MAX (1 << 20)

int job_file_parse(const char *path, struct job_file *jf)
{
	FILE *f = fopen(path, "r");
	char *text, *nul;
	size_t len;
	int ret = -1;

	if (!f) {
		fprintf(stderr, "%s: cannot open job file: %s\n", path, strerror(errno));
		return -1;
	}
	/* Read it whole: a directory fails here (EISDIR), not as an empty file. */
	text = malloc(JOB_FILE_MAX + 2);
	if (!text) {
		fprintf(stderr, "%s: cannot read job file: %s\n", path, strerror(errno));
		fclose(f);
		return -1;
	}
	len = fread(text, 1, JOB_FILE_MAX + 1, f);
	text[len] = '\0';
	if (ferror(f))
		fprintf(stderr, "%s: cannot read job file: %s\n", path, strerror(errno));
	else if (len > JOB_FILE_MAX)
		fprintf(stderr, "%s: larger than %d KiB: not a job file\n", path, JOB_FILE_MAX >> 10);
	else if ((nul = memchr(text, '\0', len))) {
		/* Text after a NUL would be dropped without a word. */
		int line = 1;

		for (char *p = text; p < nul; p++)
			line += *p == '\n';
		fprintf(stderr, "%s:%d: a NUL byte: a job file is text\n", path, line);
	} else
		ret = parse(path, text, jf);
	fclose(f);
	free(text);
	return ret;
}
