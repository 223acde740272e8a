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
	/* the section being read (NULL: none yet, or its header was refused) */
	struct job *current;
	int section_line[JOB_MAX];	/* where each job's header is */
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

/*
 * Section names become the names of a job's files in the guest and of its
 * results on the host, so they are held to the rule of lib/names.h:
 * letters, digits, '.', '_', '+' and '-', not starting with '.'. fio takes
 * any name; a '/', "..", a space or markup would reach a path or a report.
 */
static int section_name_ok(const char *s)
{
	return *s != '.' && !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-")];
}

/*
 * A section starts: [global] again adds to it, as in fio; a job is made
 * from [global] as it stands now. fio runs two sections of one name as two
 * jobs of that name; here a name is a job's identity in its results, so a
 * second section of a name is refused.
 */
static void section_start(struct parse_ctx *c, const char *name)
{
	struct job_file *jf = c->jf;
	int i;

	if (!strcmp(name, "global")) {
		c->current = &jf->global;
		return;
	}
	for (i = 0; i < jf->njobs; i++)
		if (!strcmp(jf->jobs[i].name, name)) {
			fail(c, "section [%s] again (first at line %d): give each job a name of its own", name,
			     c->section_line[i]);
			return;
		}
	if (jf->njobs == JOB_MAX) {
		fail(c, "more than %d job sections", JOB_MAX);
		return;
	}
	jf->jobs[jf->njobs] = jf->global;
	snprintf(jf->jobs[jf->njobs].name, JOB_NAME_MAX, "%s", name);
	c->section_line[jf->njobs] = c->line;
	c->current = &jf->jobs[jf->njobs++];
}

/*
 * A section header, read here rather than by libinih: it says nothing of
 * a section without keys, and keeps only 49 characters of a name. Say what
 * is wrong on this line, not on the next key.
 */
static void section_header(struct parse_ctx *c, const char *line)
{
	size_t head = strcspn(line, "\r\n");
	const char *close = memchr(line, ']', head), *rest;
	size_t namelen = close ? (size_t)(close - line - 1) : 0;
	char name[JOB_NAME_MAX];

	c->current = NULL; /* until the header is found good: its keys go nowhere */
	if (!close) {
		fail(c, "section header '%.*s' has no closing ']'", (int)head, line);
		return;
	}
	rest = close + 1 + strspn(close + 1, " \t\r");
	if (!namelen)
		fail(c, "empty section name '[]'");
	else if (namelen >= JOB_NAME_MAX)
		fail(c, "section name '%.*s' is longer than %d characters", (int)namelen, line + 1,
		     JOB_NAME_MAX - 1);
	else if (*rest && *rest != '\n' && *rest != ';' && *rest != '#')
		fail(c, "text after the section header '%.*s': a header is alone on its line (a comment may follow)",
		     (int)(close + 1 - line), line);
	else {
		memcpy(name, line + 1, namelen);
		name[namelen] = '\0';
		if (section_name_ok(name))
			section_start(c, name);
		else
			fail(c, "section name '%s' is not valid: use letters, digits, '.', '_', '+' or '-', not starting with '.' (it names the job's files and results)",
			     name);
	}
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_ctx *c = user;
	const struct opt *o;

	(void)section; /* the reader keeps the section: section_header() */
	if (!name[0]) {
		fail(c, "a value without a key ('=%s')", value);
		return 0;
	}
	if (!c->current) {
		/* Before any header; after a refused one, this is not the first error. */
		fail(c, "%s=%s is outside any section: put it under [global] or a [job]", name, value);
		return 0;
	}
	for (o = options; o->name; o++)
		if (!strcmp(o->name, name))
			return set_option(c, c->current, o, value) == 0;
	o = closest_option(name);
	fail(c, "unknown option '%s'%s%s%s (pmem-writer --help lists them)", name,
	     o ? "; did you mean '" : "", o ? o->name : "", o ? "'?" : "");
	return 0;
}

/*
 * libinih reader: one line of the text at a time, into str (num bytes). It
 * counts lines; drops a UTF-8 byte order mark and leading blanks (fio
 * ignores indentation; libinih would read an indented line as more of the
 * previous value); reads section headers; and turns fio's bare "key" into
 * "key=1". CRLF line ends pass: libinih strips the '\r' as fio does. A
 * repeated key is libinih's and fio's alike: the last value wins.
 */
static char *reader(char *str, int num, void *stream)
{
	struct parse_ctx *c = stream;
	const char *s = c->text;
	size_t full, len, t;

	if (!*s)
		return NULL;
	full = strcspn(s, "\n");
	c->text += full + (s[full] == '\n');
	c->line++;
	t = c->line == 1 && !strncmp(s, "\xEF\xBB\xBF", 3) ? 3 : 0;
	t += strspn(s + t, " \t");
	len = full > t ? full - t : 0;
	/* Room for "=1\n" and the NUL. A long comment is still a comment. */
	if (len > (size_t)num - 4) {
		if (s[t] != ';' && s[t] != '#')
			fail(c, "line is longer than %d characters", num - 4);
		strcpy(str, "\n");
		return str;
	}
	memcpy(str, s + t, len);
	strcpy(str + len, "\n");
	if (str[0] == '[') {
		section_header(c, str);
		return str;
	}
	if (isalpha((unsigned char)str[0]) && !strpbrk(str, "=:[;#")) {
		size_t end = strcspn(str, "\r\n");

		while (end > 0 && (str[end - 1] == ' ' || str[end - 1] == '\t'))
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
