// SPDX-License-Identifier: GPL-2.0
/*
 * Runs side by side, in the shape of mmtests' compare-kernels: one row per
 * (filesystem, job, section, mode, metric) present in every run, each run's
 * median, its change against the first run, and '*' where the change is
 * beyond noise (results/stats.h). Then the geometric mean of the ratios per
 * metric, and the cells that only some runs have.
 *
 * Cells pair across kernels: when every run holds a single kernel (the usual
 * "6.1-stock vs 6.1-aware"), the kernel is not part of the key; when a run
 * holds several, it is.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "series.h"
#include "stats.h"
#include "summary.h"

#define MAX_RUNS 8

static int key_equal(const struct series *a, const struct series *b, int with_kernel)
{
	return (!with_kernel || !strcmp(a->kernel, b->kernel)) && !strcmp(a->fs, b->fs) &&
	       !strcmp(a->job, b->job) && !strcmp(a->section, b->section) &&
	       !strcmp(a->mode, b->mode) && a->metric == b->metric;
}

static struct series *find(struct run *r, const struct series *k, int with_kernel)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (key_equal(&r->s[i], k, with_kernel))
			return &r->s[i];
	return NULL;
}

static const char *run_label(struct run *r, char *buf, size_t size)
{
	const char *id = json_string_value(json_object_get(r->info, "run_id"));
	const char *k;
	json_t *v;

	snprintf(buf, size, "%s", id ? id : r->dir);
	json_object_foreach(json_object_get(r->info, "kernels"), k, v) {
		const char *git = json_string_value(json_object_get(v, "git_describe"));
		const char *config = json_string_value(json_object_get(v, "config_sha256"));

		snprintf(buf + strlen(buf), size - strlen(buf), " %s", k);
		/* A user's kernel keeps its name across rebuilds: say which build. */
		if (json_is_true(json_object_get(v, "user")))
			snprintf(buf + strlen(buf), size - strlen(buf), " (%s%s, config %.12s)",
				 git ? "git " : "release ",
				 git ? git : json_string_value(json_object_get(v, "release")) ?: "unknown",
				 config ? config : "unknown");
	}
	return buf;
}

static void row_label(const struct series *s, int with_kernel, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s %s [%s] %s %s", with_kernel ? s->kernel : "", with_kernel ? " " : "",
		 s->fs, s->job, s->section, s->mode, s->metric->key);
}

/*
 * One run that holds several kernels (make bench KERNELS="6.1-aware
 * 6.12-aware") compares its kernels: each becomes a run of its own.
 */
static int split_by_kernel(const char *dir, struct run *runs)
{
	struct run all;
	const char *k;
	json_t *v;
	size_t i;
	int n = 0;

	if (run_load(dir, &all) < 0)
		return -1;
	if (json_object_size(json_object_get(all.info, "kernels")) < 2) {
		fprintf(stderr, "compare: %s holds one kernel: give a second run (make compare A=<run> B=<run>)\n", dir);
		run_free(&all);
		return -1;
	}
	json_object_foreach(json_object_get(all.info, "kernels"), k, v) {
		struct run *r = &runs[n++];

		memset(r, 0, sizeof(*r));
		snprintf(r->dir, sizeof(r->dir), "%s", dir);
		r->info = json_deep_copy(all.info);
		json_object_set_new(r->info, "kernels", json_pack("{s:O}", k, v));
		r->s = calloc(all.n ? all.n : 1, sizeof(*r->s));
		if (!r->s)
			abort();
		for (i = 0; i < all.n; i++)
			if (!strcmp(all.s[i].kernel, k))
				r->s[r->n++] = all.s[i];
		if (n == MAX_RUNS)
			break;
	}
	run_free(&all);
	return n;
}

int compare_runs(const char *const *dirs, int n, FILE *out)
{
	struct run runs[MAX_RUNS];
	double logsum[MAX_RUNS][16] = { { 0 } };
	int count[MAX_RUNS][16] = { { 0 } };
	int i, with_kernel = 0, rows = 0, ret = 0;
	const struct metric *m;
	char label[512], num[32];
	size_t k;

	if (n < 1 || n > MAX_RUNS) {
		fprintf(stderr, "compare: give 1 to %d runs\n", MAX_RUNS);
		return 2;
	}
	if (n == 1) {
		n = split_by_kernel(dirs[0], runs);
		if (n < 0)
			return 2;
	} else {
		for (i = 0; i < n; i++)
			if (run_load(dirs[i], &runs[i]) < 0) {
				while (i--)
					run_free(&runs[i]);
				return 2;
			}
	}
	for (i = 0; i < n; i++)
		with_kernel |= json_object_size(json_object_get(runs[i].info, "kernels")) > 1;
	/* Something to compare at all? */
	for (k = 0; k < runs[0].n && !rows; k++) {
		int all = 1;

		for (i = 1; i < n; i++)
			all &= find(&runs[i], &runs[0].s[k], with_kernel) != NULL;
		rows += all;
	}
	if (!rows) {
		fprintf(stderr, "compare: %s and the other runs have no cell in common (other jobs, filesystems or modes?)\n",
			dirs[0]);
		ret = 2;
		goto out;
	}

	fprintf(out, "runs:\n");
	for (i = 0; i < n; i++)
		fprintf(out, "  %c  %s\n", 'A' + i, run_label(&runs[i], label, sizeof(label)));
	for (i = 1; i < n; i++)
		if (strcmp(json_string_value(json_path(runs[i].info, "accel.name")) ?: "",
			   json_string_value(json_path(runs[0].info, "accel.name")) ?: "")) {
			fprintf(out, "note: the runs used different accelerators (TCG and KVM): compare their counts, "
				     "not their times\n");
			break;
		}
	fprintf(out, "median over repetitions; %%: change against A; * = beyond noise "
		     "(means differ by more than the sum of 95%% CI half-widths)\n\n");
	fprintf(out, "%-58s %12s", "cell", "A");
	for (i = 1; i < n; i++)
		fprintf(out, " %12c %9s", 'A' + i, "");
	fputc('\n', out);
	for (k = 0; k < runs[0].n; k++) {
		struct series *a = &runs[0].s[k], *b[MAX_RUNS];
		struct sample_stats sa, sb;
		int all = 1;

		for (i = 1; i < n; i++)
			all &= (b[i] = find(&runs[i], a, with_kernel)) != NULL;
		if (!all)
			continue;
		sample_stats_of(a->v, a->n, &sa);
		row_label(a, with_kernel, label, sizeof(label));
		fprintf(out, "%-58s %12s", label, summary_human(sa.median, num, sizeof(num)));
		for (i = 1; i < n; i++) {
			sample_stats_of(b[i]->v, b[i]->n, &sb);
			if (sa.median != 0) {
				double ratio = sb.median / sa.median;

				fprintf(out, " %12s %+8.1f%%%s", summary_human(sb.median, num, sizeof(num)), (ratio - 1) * 100,
					differs_beyond_noise(&sa, &sb) ? "*" : " ");
				if (ratio > 0) {
					logsum[i][a->metric - metrics] += log(ratio);
					count[i][a->metric - metrics]++;
				}
			} else {
				fprintf(out, " %12s %9s%s", summary_human(sb.median, num, sizeof(num)), sb.median == 0 ? "=" : "(A is 0)",
					differs_beyond_noise(&sa, &sb) ? "*" : " ");
			}
		}
		fputc('\n', out);
	}
	fprintf(out, "\ngeometric mean of the ratios to A, per metric (cells with a 0 left out):\n");
	for (m = metrics; m->key; m++) {
		int any = 0;

		for (i = 1; i < n; i++)
			any |= count[i][m - metrics] > 0;
		if (!any)
			continue;
		fprintf(out, "  %-28s", m->label);
		for (i = 1; i < n; i++) {
			if (count[i][m - metrics])
				fprintf(out, "  %c: %.3f (%d cells)", 'A' + i,
					exp(logsum[i][m - metrics] / count[i][m - metrics]), count[i][m - metrics]);
			else
				fprintf(out, "  %c: -", 'A' + i);
		}
		fputc('\n', out);
	}
	/* Cells that some runs lack are listed, never silently dropped. */
	for (i = 0; i < n; i++) {
		int header = 0, j;

		for (k = 0; k < runs[i].n; k++) {
			int all = 1;

			for (j = 0; j < n; j++)
				all &= j == i || find(&runs[j], &runs[i].s[k], with_kernel) != NULL;
			if (all)
				continue;
			if (!header++)
				fprintf(out, "\nonly in some runs (present in %c):\n", 'A' + i);
			row_label(&runs[i].s[k], with_kernel, label, sizeof(label));
			fprintf(out, "  %s\n", label);
		}
	}
out:
	for (i = 0; i < n; i++)
		run_free(&runs[i]);
	return ret;
}
