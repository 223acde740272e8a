// SPDX-License-Identifier: GPL-2.0
/*
 * Collect a bench run: the cells from the units that are done, the
 * accelerator they ran on and how they shared their hosts (run.json), the
 * summary and the report; and every planned unit still missing, by name and
 * with the command that runs it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../results/summary.h"
#include "bench.h"
#include "bench_resume.h"
#include "../results/report.h"
#include "../lib/jsonio.h"

/*
 * What the units say about their hosts: how many ran beside other guests,
 * the most guests one host ran at once, and on how many CPUs. Emulated time
 * under TCG stretches when guests share cores; counts do not.
 */
static json_t *host_sharing(const char *run_dir, json_t **accel)
{
	char pattern[PATH_MAX];
	json_int_t units = 0, shared = 0, max = 0, cpus = 0;
	json_t *hosts = json_object();
	size_t i;
	glob_t g;

	*accel = NULL;
	snprintf(pattern, sizeof(pattern), "%s/units/*/unit.json", run_dir);
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++) {
			json_t *unit = json_load_file(g.gl_pathv[i], 0, NULL);
			json_t *host = json_object_get(unit, "host");
			json_int_t n = json_integer_value(json_object_get(host, "guests_max"));
			const char *name = json_string_value(json_object_get(host, "host"));

			if (!*accel)
				*accel = json_incref(json_object_get(json_object_get(unit, "vm"), "accel"));
			units++;
			if (!json_is_object(host)) {
				json_decref(unit);
				continue;
			}
			shared += n > 1;
			max = n > max ? n : max;
			cpus = json_integer_value(json_object_get(host, "cpus"));
			if (name && strlen(name) < 256)
				json_object_set_new(hosts, name, json_integer(cpus));
			json_decref(unit);
		}
		globfree(&g);
	}
	return json_pack("{s:I, s:I, s:I, s:o}", "units", units, "beside_other_guests", shared,
			 "guests_max", max, "hosts", hosts);
}

/* Planned units with no unit.json, each said with the command that runs it. */
static int say_missing(const struct bench *b)
{
	char dir[PATH_MAX];
	int rep, i, k, missing = 0;

	bench_for_each_unit(b, rep, i, k) {
		bench_unit_dir(b, b->kernels.v[i], b->fss.v[k], rep, dir, sizeof(dir));
		if (bench_unit_done(dir))
			continue;
		if (!missing++)
			fprintf(stderr, "collect: units not done (run each line, or plan again with --resume %s):\n",
				b->run_id);
		fputs("  ", stderr);
		bench_plan_line(b, b->kernels.v[i], b->fss.v[k], rep, stderr);
	}
	return missing;
}

int bench_collect(struct bench *b, FILE *out)
{
	char path[PATH_MAX], why[WHY_MAX];
	json_t *doc, *accel, *sharing;

	snprintf(path, sizeof(path), "%s/run.json", b->run_dir);
	doc = json_load_file(path, 0, NULL);
	if (!doc) {
		fprintf(stderr, "collect: cannot read %s\n", path);
		return -1;
	}
	/* Record the accelerator the guests actually used, and their sharing. */
	sharing = host_sharing(b->run_dir, &accel);
	if (accel)
		json_object_set_new(doc, "accel", accel);
	json_object_set_new(doc, "host_sharing", sharing);
	if (json_write_atomic_why(path, doc, why, sizeof(why)) < 0)
		fprintf(stderr, "collect: %s\n", why);
	json_decref(doc);
	if (bench_cells_write(b->run_dir, why, sizeof(why)) < 0)
		fprintf(stderr, "bench: %s\n", why);
	fprintf(out, "\n");
	summary_print(b->run_dir, out);
	fprintf(out, "\nresults: %s (cells/*.json, one per cell; units/ holds each guest's logs)\n", b->run_dir);
	fflush(out);
	report_and_say(b->run_dir);
	return say_missing(b);
}
