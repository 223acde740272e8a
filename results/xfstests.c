// SPDX-License-Identifier: GPL-2.0
/* make xfstests: the test list, the guest's documents and the table; see xfstests.h. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "table.h"
#include "xfstests.h"

#define XT_SECONDS_MAX (7 * 24 * 3600.0)

static const char *const status_names[] = {
	[XT_NONE] = "none", [XT_PASS] = "pass", [XT_FAIL] = "fail", [XT_NOTRUN] = "notrun",
};

/* The result files a test document may carry, and nothing else. */
static const char *const file_names[] = { "out.bad", "full", "dmesg", "check", NULL };

const char *xt_status_name(enum xt_status s)
{
	return s <= XT_NOTRUN ? status_names[s] : "none";
}

enum xt_status xt_status_parse(const char *s)
{
	int i;

	for (i = XT_PASS; s && i <= XT_NOTRUN; i++)
		if (!strcmp(s, status_names[i]))
			return i;
	return XT_NONE;
}

int xt_name_valid(const char *s)
{
	size_t dir = 0, num = 0;

	while (dir < 16 && (islower((unsigned char)s[dir]) || isdigit((unsigned char)s[dir])))
		dir++;
	if (!dir || s[dir] != '/')
		return 0;
	while (num < 5 && isdigit((unsigned char)s[dir + 1 + num]))
		num++;
	return (num == 3 || num == 4) && s[dir + 1 + num] == '\0';
}

int xt_test_applies(const char *test, const char *fs)
{
	size_t dir = strcspn(test, "/");

	return !strncmp(test, "generic/", 8) || (strlen(fs) == dir && !strncmp(test, fs, dir));
}

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

int xt_list_load(const char *path, struct xt_list *l, char *why, size_t len)
{
	char line[1024], name[XT_NAME_MAX + 1];
	FILE *f = fopen(path, "r");
	size_t i;
	int lineno = 0;

	l->n = 0;
	if (!f) {
		say(why, len, "cannot read the test list %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *p = line + strspn(line, " \t");
		size_t n = strcspn(p, " \t\n");

		lineno++;
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		if (n > XT_NAME_MAX - 1 || (snprintf(name, sizeof(name), "%.*s", (int)n, p), !xt_name_valid(name))) {
			say(why, len, "%s:%d: '%.*s' is not a test name like generic/413", path, lineno,
			    (int)(n > 40 ? 40 : n), p);
			goto fail;
		}
		if (!p[n + strspn(p + n, " \t")] || p[n + strspn(p + n, " \t")] == '\n') {
			say(why, len, "%s:%d: %s has no reason; say in one line why it is on the list", path, lineno,
			    name);
			goto fail;
		}
		for (i = 0; i < l->n; i++)
			if (!strcmp(l->name[i], name)) {
				say(why, len, "%s:%d: %s is listed twice", path, lineno, name);
				goto fail;
			}
		if (l->n == XT_MAX_TESTS) {
			say(why, len, "%s: more than %d tests", path, XT_MAX_TESTS);
			goto fail;
		}
		snprintf(l->name[l->n++], XT_NAME_MAX, "%s", name);
	}
	fclose(f);
	if (!l->n) {
		say(why, len, "%s lists no test", path);
		return -1;
	}
	return 0;
fail:
	fclose(f);
	return -1;
}

void xt_doc_free(struct xt_doc *d)
{
	json_decref(d->files);
	d->files = NULL;
}

/* A string member of at most max-1 bytes without NUL, copied to out. */
static int get_string(json_t *o, const char *key, char *out, size_t max)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v) || json_string_length(v) >= max ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return -1;
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int check_files(json_t *files, char *why, size_t len)
{
	const char *key;
	json_t *v;
	int i, known;

	if (!json_is_object(files)) {
		say(why, len, "files is not an object");
		return -1;
	}
	json_object_foreach(files, key, v) {
		for (i = 0, known = 0; file_names[i]; i++)
			known |= !strcmp(key, file_names[i]);
		if (!known) {
			say(why, len, "files names an unknown file");
			return -1;
		}
		if (!json_is_string(v) || json_string_length(v) > XT_FILE_MAX) {
			say(why, len, "file %s is not a string of at most %d bytes", key, XT_FILE_MAX);
			return -1;
		}
	}
	return 0;
}

int xt_parse_line(const char *line, size_t len, struct xt_doc *d, char *why, size_t whylen)
{
	json_error_t err;
	json_t *doc, *v;
	const char *kind;

	memset(d, 0, sizeof(*d));
	if (len == 0 || line[0] != '{')
		return XT_DOC_NONE;
	if (len > XT_LINE_MAX) {
		say(why, whylen, "a document of %zu bytes (at most %d)", len, XT_LINE_MAX);
		return -1;
	}
	/* Depth is bounded by jansson (JSON_PARSER_MAX_DEPTH); NUL bytes refused. */
	doc = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
	if (!doc || !json_is_object(doc)) {
		say(why, whylen, "not a JSON object (%s)", doc ? "another JSON value" : err.text);
		json_decref(doc);
		return -1;
	}
	kind = json_string_value(json_object_get(doc, "kind"));
	v = json_object_get(doc, "version");
	if (!kind || !json_is_integer(v) || json_integer_value(v) != 1) {
		say(why, whylen, "a document without kind or of a version other than 1");
		goto bad;
	}
	if (!strcmp(kind, "xfstests-env")) {
		d->kind = XT_DOC_ENV;
		d->files = doc;
		return d->kind;
	}
	if (!strcmp(kind, "xfstests-error")) {
		if (get_string(doc, "message", d->reason, sizeof(d->reason)) < 0) {
			say(why, whylen, "an error document without a message of at most %d bytes", XT_REASON_MAX - 1);
			goto bad;
		}
		json_decref(doc);
		d->kind = XT_DOC_ERROR;
		return d->kind;
	}
	if (strcmp(kind, "xfstests-test")) {
		say(why, whylen, "unknown kind of document");
		goto bad;
	}
	if (get_string(doc, "test", d->test, sizeof(d->test)) < 0 || !xt_name_valid(d->test)) {
		say(why, whylen, "test is not a test name");
		goto bad;
	}
	d->status = xt_status_parse(json_string_value(json_object_get(doc, "status")));
	if (d->status == XT_NONE) {
		say(why, whylen, "%s: status is not pass, fail or notrun", d->test);
		goto bad;
	}
	v = json_object_get(doc, "seconds");
	d->seconds = json_number_value(v);
	if (!json_is_number(v) || !isfinite(d->seconds) || d->seconds < 0 || d->seconds > XT_SECONDS_MAX) {
		say(why, whylen, "%s: seconds is not a duration", d->test);
		goto bad;
	}
	/* Optional (FORCE_AWARE): how many mappings were made with the flag. */
	v = json_object_get(doc, "aware_mappings");
	if (v && (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > XT_AWARE_MAX)) {
		say(why, whylen, "%s: aware_mappings is not a count", d->test);
		goto bad;
	}
	d->aware_mappings = v ? (long)json_integer_value(v) : 0;
	if (get_string(doc, "reason", d->reason, sizeof(d->reason)) < 0) {
		say(why, whylen, "%s: reason is not a string of at most %d bytes", d->test, XT_REASON_MAX - 1);
		goto bad;
	}
	if (check_files(json_object_get(doc, "files"), why, whylen) < 0)
		goto bad;
	d->files = json_incref(json_object_get(doc, "files"));
	json_decref(doc);
	d->kind = XT_DOC_TEST;
	return d->kind;
bad:
	json_decref(doc);
	return -1;
}

const char *xt_baseline(const char *kernel, const char *const *kernels, size_t n)
{
	size_t dash = strcspn(kernel, "-"), i;

	if (!kernel[dash] || !strcmp(kernel + dash, "-stock"))
		return NULL;
	for (i = 0; i < n; i++)
		if (!strncmp(kernels[i], kernel, dash + 1) && !strcmp(kernels[i] + dash, "-stock"))
			return kernels[i];
	return NULL;
}

static json_t *find(json_t *results, const char *kernel, const char *fs, const char *test)
{
	json_t *r;
	size_t i;

	json_array_foreach(results, i, r)
		if (!strcmp(json_string_value(json_object_get(r, "kernel")) ?: "", kernel) &&
		    !strcmp(json_string_value(json_object_get(r, "fs")) ?: "", fs) &&
		    !strcmp(json_string_value(json_object_get(r, "test")) ?: "", test))
			return r;
	return NULL;
}

/* FORCE_AWARE: how many mappings each kernel made with the flag, on one filesystem. */
static void aware_totals(FILE *f, json_t *results, json_t *kernels, const char *fs)
{
	char line[1024];
	size_t i, j, len = 0;
	json_t *k, *r;
	int any = 0;

	len += snprintf(line, sizeof(line), "Mappings made with MAP_PMEM_AWARE (FORCE_AWARE) on %s:", fs);
	json_array_foreach(kernels, i, k) {
		json_int_t n = 0;

		json_array_foreach(results, j, r)
			if (json_equal(json_object_get(r, "kernel"), k) &&
			    !strcmp(json_string_value(json_object_get(r, "fs")) ?: "", fs))
				n += json_integer_value(json_object_get(r, "aware_mappings"));
		any |= n > 0;
		if (len < sizeof(line))
			len += snprintf(line + len, sizeof(line) - len, "%s %s %lld", i ? "," : "",
					json_string_value(k) ?: "?", (long long)n);
	}
	if (any)
		table_note(f, TABLE_MARKDOWN, line);
}

int xt_table(FILE *f, json_t *results, json_t *kernels, json_t *fss)
{
	const char *header[TABLE_MAX_COLS], *cells[TABLE_MAX_COLS];
	char cellbuf[TABLE_MAX_COLS][48], caption[128];
	json_t *fs, *k, *r, *tests = json_array();
	size_t i, j, ncols;
	int regressions = 0;

	/* Tests in the order they were run, each once. */
	json_array_foreach(results, i, r) {
		json_t *t = json_object_get(r, "test");
		size_t m;
		json_t *seen;
		int dup = 0;

		json_array_foreach(tests, m, seen)
			dup |= json_equal(seen, t);
		if (!dup && json_is_string(t))
			json_array_append(tests, t);
	}
	ncols = json_array_size(kernels) + 1;
	if (ncols > TABLE_MAX_COLS)
		ncols = TABLE_MAX_COLS;
	json_array_foreach(fss, i, fs) {
		struct table t;
		json_t *test;
		size_t ti;

		header[0] = "test";
		for (j = 1; j < ncols; j++)
			header[j] = json_string_value(json_array_get(kernels, j - 1));
		snprintf(caption, sizeof(caption), "xfstests on %s (-o dax)", json_string_value(fs));
		table_begin(&t, f, TABLE_MARKDOWN, caption, (int)ncols, header, NULL);
		json_array_foreach(tests, ti, test) {
			if (!xt_test_applies(json_string_value(test), json_string_value(fs)))
				continue;
			cells[0] = json_string_value(test);
			for (j = 1; j < ncols; j++) {
				k = json_array_get(kernels, j - 1);
				r = find(results, json_string_value(k), json_string_value(fs), cells[0]);
				if (!r) {
					snprintf(cellbuf[j], sizeof(cellbuf[j]), "-");
				} else {
					int reg = json_is_true(json_object_get(r, "regression"));

					regressions += reg;
					snprintf(cellbuf[j], sizeof(cellbuf[j]), "%s%s",
						 json_string_value(json_object_get(r, "status")) ?: "?",
						 reg ? " **REGRESSION**" :
						 json_is_true(json_object_get(r, "differs")) ? " (differs)" : "");
				}
				cells[j] = cellbuf[j];
			}
			table_row(&t, cells);
		}
		table_end(&t);
		aware_totals(f, results, kernels, json_string_value(fs));
	}
	json_decref(tests);
	return regressions;
}

void xt_compare_baselines(json_t *results, const char *const *kernels, size_t n)
{
	json_t *r, *b;
	size_t i, j;

	json_array_foreach(results, i, r) {
		const char *base = xt_baseline(json_string_value(json_object_get(r, "kernel")) ?: "", kernels, n);
		const char *st = json_string_value(json_object_get(r, "status")) ?: "";

		if (!base)
			continue;
		json_object_set_new(r, "baseline", json_string(base));
		json_array_foreach(results, j, b) {
			const char *bst = json_string_value(json_object_get(b, "status")) ?: "";

			if (strcmp(json_string_value(json_object_get(b, "kernel")) ?: "", base) ||
			    !json_equal(json_object_get(b, "fs"), json_object_get(r, "fs")) ||
			    !json_equal(json_object_get(b, "test"), json_object_get(r, "test")))
				continue;
			json_object_set_new(r, "differs", json_boolean(strcmp(st, bst)));
			json_object_set_new(r, "regression", json_boolean(!strcmp(bst, "pass") && !strcmp(st, "fail")));
		}
	}
}
