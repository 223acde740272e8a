// SPDX-License-Identifier: GPL-2.0
/*
 * A run's report, and a comparison page: see report.h. The page is one
 * self-contained HTML file; the same content goes to report.md for
 * reading in a terminal or a git forge.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "figures.h"
#include "report.h"
#include "summary.h"
#include "table.h"
#include "verdicts.h"

static const char page_style[] =
	"body{font-family:'DejaVu Sans',sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}"
	"h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:2em}"
	"table{border-collapse:collapse;margin:1em 0;font-size:0.85em}"
	"caption{text-align:left;font-weight:bold;padding:0.3em 0}"
	"th,td{border:1px solid #ccc;padding:0.25em 0.6em;vertical-align:top}"
	"th{background:#f0f0f0}td.num{text-align:right;white-space:nowrap}"
	"figure{display:inline-block;margin:0.5em 0.5%;vertical-align:top;width:48%}"
	"figure svg{width:100%;height:auto}"
	"figcaption{font-size:0.85em;color:#444}pre{font-size:0.8em;overflow-x:auto}"
	".warn{background:#fff4e0;padding:0.5em;border-left:4px solid #f0a000}";

/* Load what a run directory holds; a crash-only run may lack run.json. */
static int source_load(const char *dir, struct source *s)
{
	char path[PATH_MAX];
	json_error_t err;
	struct stat st;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/crash/summary.json", dir);
	if (stat(path, &st) == 0 && !(s->crash = json_load_file(path, 0, &err))) {
		fprintf(stderr, "%s: unreadable (%s): the crash test was cut off mid-write or the file was edited\n",
			path, err.text);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/run.json", dir);
	if (stat(path, &st) == 0 || !s->crash) {
		if (run_load(dir, &s->run) < 0) {
			json_decref(s->crash);
			return -1;
		}
		return 0;
	}
	/* A crash run made before crashtest wrote run.json. */
	snprintf(s->run.dir, sizeof(s->run.dir), "%s", dir);
	return 0;
}

static void source_free(struct source *s)
{
	run_free(&s->run);
	json_decref(s->crash);
}

static int make_dir(const char *dir)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "report: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static const char *jstr(json_t *o, const char *path)
{
	const char *s = json_string_value(json_path(o, path));

	return s ? s : "unknown";
}

/*
 * Whether run.json is a bench run's: it says its kind ("bench",
 * "crashtest", "xfstests"); bench runs made before it did are known by
 * their repetitions.
 */
static int is_bench_run(json_t *info)
{
	const char *kind = json_string_value(json_object_get(info, "kind"));

	return kind ? !strcmp(kind, "bench") : json_object_get(info, "reps") != NULL;
}

static const char *run_id(struct source *s)
{
	const char *id = json_string_value(json_object_get(s->run.info, "run_id"));

	if (!id)
		id = json_string_value(json_object_get(s->crash, "run_id"));
	return id ? id : s->run.dir;
}

static void join_strings(json_t *array, char *buf, size_t size)
{
	json_t *v;
	size_t i;

	buf[0] = '\0';
	json_array_foreach(array, i, v)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? ", " : "", json_string_value(v) ?: "?");
}

/* What ran where: one key/value table from run.json (and the crash summary). */
static void describe(struct source *s, FILE *out, enum table_format fmt)
{
	static const char *const header[] = { "item", "value" };
	json_t *info = s->run.info, *k, *patch;
	const char *name, *accel;
	const char *row[2];
	char value[2048];
	struct table t;
	size_t i;

#define ROW(key, ...) do { snprintf(value, sizeof(value), __VA_ARGS__); \
			   row[0] = key; row[1] = value; table_row(&t, row); } while (0)

	table_begin(&t, out, fmt, NULL, 2, header, NULL);
	ROW("run", "%s", run_id(s));
	if (info) {
		time_t when = (time_t)json_integer_value(json_object_get(info, "date"));
		char date[64];

		strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&when));
		ROW("date", "%s (harness git %s)", date, jstr(info, "git"));
		ROW("host", "%s, kernel %s (%s)", jstr(info, "host.cpu"), jstr(info, "host.kernel"),
		    jstr(info, "host.nodename"));
		ROW("QEMU", "%s%s", jstr(info, "qemu.version"),
		    json_is_true(json_path(info, "qemu.plugin_api_v4")) ? " (TCG plugin API v4)" : "");
		accel = jstr(info, "accel.name");
		ROW("accelerator", "%s (%s)%s", accel, jstr(info, "accel.reason"),
		    !strcmp(accel, "tcg") ? ": times are emulated; compare them only as ratios within this run" : "");
		if (is_bench_run(info))
			ROW("repetitions", "%lld%s", (long long)json_integer_value(json_object_get(info, "reps")),
			    json_is_true(json_object_get(info, "quick")) ? " (QUICK=1: a first look)" : "");
		join_strings(json_object_get(info, "filesystems"), value, sizeof(value));
		row[0] = "filesystems";
		row[1] = value;
		table_row(&t, row);
		if (json_object_get(info, "modes")) {
			join_strings(json_object_get(info, "modes"), value, sizeof(value));
			table_row(&t, (const char *[]){ "modes", value });
			join_strings(json_object_get(info, "jobs"), value, sizeof(value));
			table_row(&t, (const char *[]){ "jobs", value });
			ROW("instructions per fault", "%s", jstr(info, "insn_per_fault"));
		}
		json_object_foreach(json_object_get(info, "kernels"), name, k) {
			char key[128];

			snprintf(key, sizeof(key), "kernel %s", name);
			/* A user's kernel (build-kernel.sh PATH): where it came from. */
			if (json_is_true(json_object_get(k, "user"))) {
				json_t *aware = json_object_get(k, "map_pmem_aware");
				char git[160] = "not in git";

				if (json_is_string(json_object_get(k, "git_describe")))
					snprintf(git, sizeof(git), "git %s", jstr(k, "git_describe"));
				snprintf(value, sizeof(value), "the user's %s %s (%s), release %s; config %.12s; "
					 "MAP_PMEM_AWARE %s", jstr(k, "kind"), jstr(k, "path"), git,
					 jstr(k, "release"), jstr(k, "config_sha256"),
					 json_is_boolean(aware) ? (json_is_true(aware) ? "found" : "absent") : "not probed");
				table_row(&t, (const char *[]){ key, value });
				continue;
			}
			snprintf(value, sizeof(value), "%s; config %.12s; patches:", jstr(k, "source"),
				 jstr(k, "config_sha256"));
			if (!json_array_size(json_object_get(k, "patches")))
				snprintf(value + strlen(value), sizeof(value) - strlen(value), " none (stock)");
			json_array_foreach(json_object_get(k, "patches"), i, patch) {
				const char *file = jstr(patch, "file"), *base = strrchr(file, '/');

				snprintf(value + strlen(value), sizeof(value) - strlen(value), " %s (%.12s)",
					 base ? base + 1 : file, jstr(patch, "sha256"));
			}
			table_row(&t, (const char *[]){ key, value });
		}
	}
	if (s->crash) {
		long long images = 0;

		/* An interrupted run's partial summary has only its finished scenarios. */
		json_array_foreach(json_object_get(s->crash, "scenarios"), i, patch)
			images += json_integer_value(json_object_get(patch, "images"));
		if (json_is_true(json_object_get(s->crash, "complete")))
			ROW("crash test", "kernel %s, accelerator %s, %lld images in %.0f s", jstr(s->crash, "kernel"),
			    jstr(s->crash, "accel"), images, json_number_value(json_object_get(s->crash, "seconds")));
		else
			ROW("crash test", "kernel %s, accelerator %s, %lld images; INCOMPLETE: the run was interrupted "
			    "after %zu scenarios", jstr(s->crash, "kernel"), jstr(s->crash, "accel"), images,
			    json_array_size(json_object_get(s->crash, "scenarios")));
	}
	table_end(&t);
#undef ROW
}

/* Copy an SVG into the page, its ids made unique to this figure. */
static int inline_svg(FILE *out, const char *dir, const char *name)
{
	char path[PATH_MAX], line[4096];
	int started = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.svg", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line;

		if (!started && !(started = strstr(line, "<svg") != NULL))
			continue; /* the XML prolog is not allowed inside HTML */
		while (*p) {
			if (!strncmp(p, "id='gp", 6) || !strncmp(p, "id=\"gnuplot", 11)) {
				fprintf(out, "id=%c%s-", p[3], name);
				p += 4;
			} else if (!strncmp(p, "'#gp", 4) || !strncmp(p, "(#gp", 4)) {
				/* href='#gpPt1' and fill='url(#gpPat1)' */
				fprintf(out, "%c#%s-", *p, name);
				p += 2;
			} else {
				fputc(*p++, out);
			}
		}
	}
	fclose(f);
	return 0;
}

static void heading(FILE *out, enum table_format fmt, int level, const char *text)
{
	if (fmt == TABLE_HTML) {
		fprintf(out, "<h%d>", level);
		html_escape(out, text);
		fprintf(out, "</h%d>\n", level);
	} else {
		fprintf(out, "\n%.*s %s\n", level, "###", text);
	}
}

/* The figures of group only (NULL: any) but not of group except (NULL: none). */
static void figures_out(struct figures *figs, const char *dir, FILE *out, enum table_format fmt,
			const char *only, const char *except)
{
	const char *group = "";
	const char *said = "";
	int i;

	for (i = 0; i < figs->n; i++) {
		struct figure *f = &figs->f[i];
		int caption;

		if ((only && strcmp(f->group, only)) || (except && !strcmp(f->group, except)))
			continue;
		if (strcmp(group, f->group)) {
			group = f->group;
			said = "";
			heading(out, fmt, 3, group);
		}
		/* A caption shared by a group's figures is said once. */
		caption = strcmp(said, f->caption) != 0;
		said = f->caption;
		if (fmt == TABLE_HTML) {
			fprintf(out, "<figure id=\"fig-%s\">\n", f->name);
			if (inline_svg(out, dir, f->name) < 0)
				fprintf(out, "<p class=\"warn\">%s.svg is missing</p>\n", f->name);
			if (caption) {
				fputs("<figcaption>", out);
				html_escape(out, f->caption);
				fputs("</figcaption>", out);
			}
			fputs("</figure>\n", out);
		} else {
			fprintf(out, "\n![%s](%s.svg)\n", f->title, f->name);
			if (caption)
				fprintf(out, "\n*%s*\n", f->caption);
		}
	}
}

static void plots_warning(struct figures *figs, FILE *out, enum table_format fmt)
{
	char text[256];

	if (!figs->failed)
		return;
	if (figs->no_gnuplot)
		snprintf(text, sizeof(text), "No plots: gnuplot is not installed here. Run 'make setup', then make the "
					     "report again.");
	else
		snprintf(text, sizeof(text), "%d plot(s) could not be drawn: the report command said why.",
			 figs->failed);
	if (fmt == TABLE_HTML) {
		fputs("<p class=\"warn\">", out);
		html_escape(out, text);
		fputs("</p>\n", out);
	} else {
		fprintf(out, "\n> **%s**\n", text);
	}
}

static void report_body(struct source *s, struct figures *figs, const char *dir, FILE *out,
			enum table_format fmt)
{
	char title[256];

	snprintf(title, sizeof(title), "MAP_PMEM_AWARE run %s", run_id(s));
	heading(out, fmt, 1, title);
	heading(out, fmt, 2, "What ran where");
	describe(s, out, fmt);
	if (s->run.n) {
		heading(out, fmt, 2, "Plots");
		plots_warning(figs, out, fmt);
		figures_out(figs, dir, out, fmt, NULL, CRASH_GROUP);
		heading(out, fmt, 2, "Bench tables");
		table_note(out, fmt, "Cells: median [min-max] over repetitions; xR = ratio to shared; * = beyond noise "
				     "(the means differ by more than the sum of their 95% confidence half-widths, "
				     "mmtests' rule). Times under TCG are emulated: read them as ratios.");
		summary_tables(&s->run, out, fmt);
	} else if (is_bench_run(s->run.info)) {
		table_note(out, fmt, "No bench results: cells/ holds no readable cell. An interrupted run is finished with "
				     "make bench RESUME=<run-id>.");
	}
	if (s->crash) {
		heading(out, fmt, 2, "Crash verdicts");
		if (!s->run.n)
			plots_warning(figs, out, fmt);
		table_note(out, fmt, "intact: every acknowledged record read back whole; lost: an acknowledged record "
				     "is gone; torn: a record is partly written; fs-corrupt: fsck found damage or the "
				     "image did not mount. 'may-lose' scenarios are allowed to lose or tear acknowledged records.");
		verdict_matrix(json_object_get(s->crash, "scenarios"), out, fmt, NULL);
		verdict_causes(json_object_get(s->crash, "scenarios"), out, fmt);
		figures_out(figs, dir, out, fmt, CRASH_GROUP, NULL);
	}
}

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, "report: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path)
{
	if (fclose(f)) {
		fprintf(stderr, "report: writing %s failed: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void html_head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", f);
	html_escape(f, title);
	fprintf(f, "</title><style>%s</style></head>\n<body>\n", page_style);
}

static void html_foot(FILE *f)
{
	fputs("<footer><p>Made by <code>pmem-harness report</code> from the run's JSON documents only; every "
	      "plot's gnuplot script (data inline) is beside this page as NAME.gp.</p></footer>\n</body></html>\n",
	      f);
}

int report_run(const char *run_dir, char *html, size_t size)
{
	char dir[PATH_MAX], path[PATH_MAX], title[256];
	struct figures *figs = calloc(1, sizeof(*figs));
	struct source s;
	FILE *f;
	int ret = -1;

	if (!figs || source_load(run_dir, &s) < 0) {
		free(figs);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/report", run_dir);
	if (make_dir(dir) < 0)
		goto out;
	figures_make(&s, 1, dir, figs);
	if (!s.run.n && is_bench_run(s.run.info))
		fprintf(stderr, "report: %s has no readable cells: the report has no bench tables or plots\n", run_dir);

	snprintf(path, sizeof(path), "%s/report.md", dir);
	if (!(f = open_out(path)))
		goto out;
	report_body(&s, figs, dir, f, TABLE_MARKDOWN);
	if (close_out(f, path) < 0)
		goto out;

	snprintf(path, sizeof(path), "%s/index.html", dir);
	if (!(f = open_out(path)))
		goto out;
	snprintf(title, sizeof(title), "MAP_PMEM_AWARE run %s", run_id(&s));
	html_head(f, title);
	report_body(&s, figs, dir, f, TABLE_HTML);
	html_foot(f);
	if (close_out(f, path) < 0)
		goto out;
	snprintf(html, size, "%s", path);
	ret = figs->failed ? 1 : 0;
out:
	source_free(&s);
	free(figs);
	return ret;
}

int report_compare(const char *const *dirs, int n, const char *out_dir, char *html, size_t size)
{
	struct source *src = calloc(n, sizeof(*src));
	struct figures *figs = calloc(1, sizeof(*figs));
	char path[PATH_MAX], *table = NULL;
	size_t len = 0;
	FILE *f, *mem;
	int i, loaded = 0, ret = -1;

	if (!src || !figs)
		goto out;
	/* The table first: it refuses runs that cannot be compared. */
	mem = open_memstream(&table, &len);
	if (!mem || compare_runs(dirs, n, mem) != 0) {
		if (mem)
			fclose(mem);
		goto out;
	}
	fclose(mem);
	for (loaded = 0; loaded < n; loaded++) {
		if (source_load(dirs[loaded], &src[loaded]) < 0)
			goto out;
		/* One run of several kernels needs no tag: its kernels name the lines. */
		if (n > 1)
			snprintf(src[loaded].tag, sizeof(src[loaded].tag), "%c", 'A' + loaded);
	}
	if (make_dir(out_dir) < 0)
		goto out;
	figures_make(src, n, out_dir, figs);
	snprintf(path, sizeof(path), "%s/index.html", out_dir);
	if (!(f = open_out(path)))
		goto out;
	html_head(f, "MAP_PMEM_AWARE comparison");
	heading(f, TABLE_HTML, 1, "MAP_PMEM_AWARE comparison");
	for (i = 0; i < n; i++) {
		char h[300];

		snprintf(h, sizeof(h), "%c: run %s", 'A' + i, run_id(&src[i]));
		heading(f, TABLE_HTML, 2, h);
		describe(&src[i], f, TABLE_HTML);
	}
	heading(f, TABLE_HTML, 2, "Compare table");
	fputs("<pre>", f);
	html_escape(f, table);
	fputs("</pre>\n", f);
	heading(f, TABLE_HTML, 2, "Plots, runs overlaid");
	plots_warning(figs, f, TABLE_HTML);
	figures_out(figs, out_dir, f, TABLE_HTML, NULL, NULL);
	html_foot(f);
	if (close_out(f, path) < 0)
		goto out;
	snprintf(html, size, "%s", path);
	ret = figs->failed ? 1 : 0;
out:
	for (i = 0; i < loaded; i++)
		source_free(&src[i]);
	free(src);
	free(figs);
	free(table);
	return ret;
}

int report_and_say(const char *run_dir)
{
	char html[PATH_MAX];
	int rc = report_run(run_dir, html, sizeof(html));

	if (rc < 0)
		return -1;
	printf("report: %s (markdown beside it: report.md)%s\n", html,
	       rc ? "; some plots are missing, see the messages above" : "");
	return rc;
}
