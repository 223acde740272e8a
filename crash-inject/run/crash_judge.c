// SPDX-License-Identifier: GPL-2.0
/*
 * A scenario's verdicts: each checker report (crash-inject/judge/judge.c judged
 * it against the ack log) becomes image-NNN.json with how the image was
 * taken, how to check it again and, under ADR, which lines it lost and
 * where the program stored them; the evidence is kept, the rest deleted.
 * The scenario's row of summary.json adds them up.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../judge/attribute.h"
#include "../judge/check_phases.h"
#include "../judge/place.h"
#include "../judge/symbolize.h"
#include "crash.h"
#include "../../lib/diskfull.h"
#include "../../lib/jsonio.h"

/* What the verdicts add up to, image by image. */
struct verdict_sums {
	json_t *counts;		/* images per verdict */
	json_t *unexpected;	/* the images the scenario's expectation forbids */
	json_t *causes;		/* ADR: why lines were lost (attribute.h) */
	int losses;		/* lost or torn images */
	int kept_example;	/* one allowed loss is kept as an example */
	/* black box: failures whose reference recovered, those whose reference
	 * failed too, and why the state after a clean exit failed (or NULL) */
	int crash_bugs, crash_bugs_adr, without_crash;
	json_t *target_problem;
	json_t *why_without;	/* first line of the recovery's output -> images */
};

static json_t *points_by_kind(const struct crash_scenario_state *st)
{
	json_t *by = json_pack("{s:i, s:i, s:i}", "ack", 0, "fence", 0, "time", 0);

	for (size_t p = 0; p < st->npoints; p++) {
		const char *k = st->points[p].kind;

		json_object_set_new(by, k, json_integer(json_integer_value(json_object_get(by, k)) + 1));
	}
	return by;
}

/* The model's own health: a flush it could not place or a line it could not
 * hold means its images may keep what a real machine would lose. */
static json_t *model_json(const struct crash_scenario_state *st, struct symbolizer *sym, int *incomplete)
{
	const struct adr_counters *k = st->npoints ? &st->points[st->npoints - 1].counters : NULL;
	json_t *m;

	if (!k) {
		*incomplete = 1;
		return json_pack("{s:s}", "error", st->model_error[0] ? st->model_error : "no crash point was taken");
	}
	*incomplete = k->unresolved_flushes || k->overflow || st->model.protocol_error[0] || st->model_error[0];
	m = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "stores", (json_int_t)k->stores,
		      "nt_stores", (json_int_t)k->nt_stores, "flushes", (json_int_t)k->flushes,
		      "fences", (json_int_t)k->fences, "unresolved_flushes", (json_int_t)k->unresolved_flushes,
		      "overflow_lines", (json_int_t)k->overflow, "points", (json_int_t)st->npoints,
		      "pending_at_last_point", (json_int_t)k->pending);
	/* Earlier values of a line past the ADR_VERSIONS the model keeps: states no image shows. */
	json_object_set_new(m, "earlier_values_not_kept", json_integer(k->versions_dropped));
	/* Which kinds of crash point the run reached: acks, sampled fences, times. */
	json_object_set_new(m, "points_by_kind", points_by_kind(st));
	/* Every ack, checked for lines of its record still pending (check_ack()). */
	json_object_set_new(m, "acks_checked", json_integer(st->acks_checked));
	json_object_set_new(m, "acks_unlocated", json_integer(st->acks_unlocated));
	json_object_set_new(m, "acks_with_pending_lines", json_integer(st->acks_pending));
	if (st->acks_pending)
		json_object_set_new(m, "first_pending_ack",
				    json_pack("{s:I, s:I, s:s, s:s}", "seq", (json_int_t)st->first_pending_seq,
					      "offset", (json_int_t)st->first_pending.off, "why",
					      adr_line_why(&st->first_pending), "site",
					      symbolize_store(sym, st->first_pending.pc, st->first_pending.caller)));
	if (k->unresolved_flushes)
		json_object_set_new(m, "last_unresolved_pc", json_sprintf("0x%llx", (unsigned long long)k->last_unresolved_pc));
	if (st->model.protocol_error[0])
		json_object_set_new(m, "protocol_error", json_string(st->model.protocol_error));
	if (st->model_error[0])
		json_object_set_new(m, "error", json_string(st->model_error));
	return m;
}

/* An image that passed: its records intact, or (a black box) its recovery done. */
static int verdict_ok(const char *v)
{
	return !strcmp(v, "intact") || !strcmp(v, "recovered");
}

/*
 * A copy of st->records in which the records acknowledged without an
 * address are placed by map, the data file's extents in an image (the
 * checker's data_map); NULL when there is no map. *placed counts them.
 */
static struct adr_record *placed_records(const struct crash_scenario_state *st, const struct data_map *map,
					 size_t *placed)
{
	struct adr_record *r;

	*placed = 0;
	if (!map || !st->nacks || !(r = malloc(st->nacks * sizeof(*r))))
		return NULL;
	for (size_t k = 0; k < st->nacks; k++) {
		r[k] = st->records[k];
		if (!r[k].n && record_place(map, ADR_NVDIMM_BASE, st->model.region_size, st->acks[k].seq,
					   st->acks[k].off, st->acks[k].len, &r[k]))
			(*placed)++;
	}
	return r;
}

static void add_adr_facts(struct crash_scenario_state *st, size_t i, struct symbolizer *sym)
{
	const struct image *im = &st->images[i];
	json_t *verdict = st->checks[i].verdict;
	const struct adr_point *pt = &st->points[im->point];
	const char *v = json_string_value(json_object_get(verdict, "verdict"));
	struct adr_record *own;
	size_t orig = i, placed;

	json_object_set_new(verdict, "point", json_integer(im->point));
	json_object_set_new(verdict, "variant", json_string(im->variant));
	json_object_set_new(verdict, "pending_lines", json_integer(pt->nlines));
	if (st->checks[i].same_as >= 0)
		json_object_set_new(verdict, "same_as", json_integer(st->checks[i].same_as));
	json_object_set_new(verdict, "hash", json_string(im->hash));
	if (!strcmp(im->variant, "eadr") || verdict_ok(v) || !strcmp(v, "fs-corrupt"))
		return;
	/* Records acknowledged by ack() alone are placed by the file's extents
	 * in this image, as its checker saw them (a twin's: its original's). */
	while (st->checks[orig].same_as >= 0)
		orig = st->checks[orig].same_as;
	own = placed_records(st, st->checks[orig].map, &placed);
	attribute_image(verdict, pt, im->keep, &(struct record_map){ own ? own : st->records, st->nacks }, sym);
	if (placed)
		json_object_set_new(verdict, "records_placed_by_extents", json_integer(placed));
	free(own);
}

/* Where x86-64 Linux loads a PIE's first segment when ASLR is off. */
#define PIE_BASE 0x555555554000ULL

static int elf_is_pie(const char *path)
{
	Elf64_Ehdr eh;
	FILE *f = fopen(path, "rb");
	int pie = f && fread(&eh, sizeof(eh), 1, f) == 1 && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
		  eh.e_type == ET_DYN;

	if (f)
		fclose(f);
	return pie;
}

static void user_symbolizer(const struct crash_scenario_state *st, const char *kernel, struct symbolizer *sym)
{
	char map[PATH_MAX];

	snprintf(map, sizeof(map), "%s/kernels/%s/System.map", st->opt->build, kernel);
	/* Our writer and a dynamic program are PIEs run with ASLR off (crash-writer.sh
	 * turns it off under ADR), loaded where the kernel puts a PIE then; a
	 * static program is not PIE. */
	if (st->program)
		symbolizer_init(sym, st->program, elf_is_pie(st->program) ? PIE_BASE : 0, map);
	else {
		static char writer[PATH_MAX];

		snprintf(writer, sizeof(writer), "%s/guest/pmem-writer", st->opt->build);
		symbolizer_init(sym, writer, PIE_BASE, map);
	}
}

/* The checker's time per step over the images it checked (twins excluded). */
static json_t *checked_phases(const struct crash_scenario_state *st)
{
	struct check_phases *p = calloc(st->nimages + 1, sizeof(*p));
	size_t i, n = 0;
	json_t *doc;

	if (!p)
		return json_object();
	for (i = 0; i < st->nimages; i++)
		if (st->checks[i].same_as < 0)
			p[n++] = st->checks[i].phases;
	doc = check_phases_json(p, n);
	free(p);
	return doc;
}

void crash_unjudged(struct crash_scenario_state *st)
{
	for (size_t i = 0; i < st->nimages; i++) {
		json_decref(st->checks[i].verdict);
		st->checks[i].verdict = NULL;
		free(st->checks[i].map);
		st->checks[i].map = NULL;
	}
	crash_images_drop(st);
}

/* Image i's verdict as the checker gave it (a twin's is its original's). */
static const char *raw_verdict(const struct crash_scenario_state *st, size_t i)
{
	while (st->checks[i].same_as >= 0)
		i = st->checks[i].same_as;
	return json_string_value(json_object_get(st->checks[i].verdict, "verdict")) ?: "fs-corrupt";
}

/* Why images failed without the crash, by the first line their recovery
 * printed: what the summary names, so the reader sees which failure it is. */
static void note_without_crash(struct verdict_sums *sums, json_t *verdict)
{
	const char *out = json_string_value(json_object_get(verdict, "recover_output")) ?: "";
	const char *v = json_string_value(json_object_get(verdict, "verdict")) ?: "?";
	char key[200];

	sums->without_crash++;
	if (*out)
		snprintf(key, sizeof(key), "%s: %.*s", v, (int)strcspn(out, "\n"), out);
	else
		snprintf(key, sizeof(key), "%s", v);
	json_object_set_new(sums->why_without, key,
			    json_integer(json_integer_value(json_object_get(sums->why_without, key)) + 1));
}

/*
 * Black box, the differential oracle: the image a failing one is compared
 * with, the same recovery on the uncrashed state at the same point. An ADR
 * image's is the eADR image of its crash point (every store the program
 * executed kept): failing where that one recovers, it failed by the lines
 * the platform lost. An eADR image's (an eADR run's, or an ADR point's
 * eADR image) is the state after a clean exit (the program done, the
 * filesystem synced and unmounted: the clean image): failing where that
 * one recovers, it failed by the crash itself. -1: none (the clean image).
 */
static long reference_image(const struct crash_scenario_state *st, size_t i)
{
	const struct image *im = &st->images[i];

	if (im->point >= 0 && strcmp(im->variant, "eadr")) {
		for (size_t j = 0; j < st->nimages; j++)
			if (st->images[j].point == im->point && !strcmp(st->images[j].variant, "eadr"))
				return j;
		return -1;
	}
	for (size_t j = st->nimages; j-- > 0;)
		if (!strcmp(st->images[j].why, "clean"))
			return j == i ? -1 : (long)j;
	return -1;
}

/*
 * A black-box image that failed is a crash bug only when its reference
 * recovered: by lost lines ("adr") when the reference is its point's eADR
 * image, by the crash ("eadr") when it is the clean image. One whose
 * reference fails too fails without the crash. The clean image failing is
 * a problem of the target or the harness, not a bug. Returns whether it
 * is a crash bug.
 */
static int judge_by_reference(struct crash_scenario_state *st, size_t i, struct verdict_sums *sums)
{
	json_t *verdict = st->checks[i].verdict;
	long ref = reference_image(st, i);
	const char *rv = ref >= 0 ? raw_verdict(st, ref) : NULL;
	int bug = rv && verdict_ok(rv), by_lines = ref >= 0 && st->images[ref].point >= 0;

	if (rv)
		json_object_set_new(verdict, "reference", json_pack("{s:I, s:s}", "image", (json_int_t)ref, "verdict", rv));
	json_object_set_new(verdict, "crash_bug", json_boolean(bug));
	if (bug) {
		json_object_set_new(verdict, "bug_kind", json_string(by_lines ? "adr" : "eadr"));
		sums->crash_bugs++;
		sums->crash_bugs_adr += by_lines;
	} else if (rv) {
		note_without_crash(sums, verdict);
	} else if (!sums->target_problem && !strcmp(st->images[i].why, "clean")) {
		const char *out = json_string_value(json_object_get(verdict, "recover_output")) ?: "";

		sums->target_problem = json_sprintf("image %zu, the state after a clean exit: %s%s%s%.*s", i,
						    raw_verdict(st, i),
						    json_is_true(json_object_get(verdict, "recover_timed_out")) ?
							    ", RECOVER timed out" : "",
						    *out ? ": " : "", (int)strcspn(out, "\n"), out);
	} else {
		note_without_crash(sums, verdict);
	}
	return bug;
}

/* Whether the line at off is pending at point q (its lines in any order). */
static int pending_at(const struct adr_point *q, uint64_t off)
{
	for (size_t l = 0; l < q->nlines; l++)
		if (q->lines[l].off == off)
			return 1;
	return 0;
}

/*
 * Of the suspects, keep those the program did make durable at some later
 * point (pending here, not pending at a later point): data it means to
 * persist. A line pending from its store to the end is runtime state that
 * nothing ever writes back (libpmemobj keeps some in the pool), and is
 * named only when no other suspect is left.
 */
static void prefer_persisted(const struct crash_scenario_state *st, long point, unsigned char *susp)
{
	const struct adr_point *pt = &st->points[point];
	unsigned char *later = calloc(pt->nlines + 1, 1);
	size_t n = 0;

	if (!later)
		abort();
	for (size_t l = 0; l < pt->nlines; l++) {
		if (!susp[l])
			continue;
		for (size_t q = point + 1; q < st->npoints && !later[l]; q++)
			later[l] = !pending_at(&st->points[q], pt->lines[l].off);
		n += later[l];
	}
	for (size_t l = 0; n && l < pt->nlines; l++)
		susp[l] &= later[l];
	free(later);
}

/*
 * Black box, ADR: which of a point's dropped lines the failure needs. A
 * strict-ADR image drops every pending line, most of them harmless (a
 * library's runtime state in the pool, rewritten at every open), so its
 * own list names too much. The point's images differ in the lines they
 * keep: the suspects are the lines every failing image of the point
 * dropped and no recovered one did (or, when that leaves none, those
 * every failing image dropped). NULL when the point has no failing image.
 */
static unsigned char *point_suspects(const struct crash_scenario_state *st, long point)
{
	const struct adr_point *pt = &st->points[point];
	unsigned char *all = malloc(pt->nlines + 1), *ok = calloc(pt->nlines + 1, 1);
	size_t failing = 0, left = 0;

	if (!all || !ok)
		abort();
	memset(all, 1, pt->nlines + 1);
	for (size_t j = 0; j < st->nimages; j++) {
		const struct image *im = &st->images[j];
		int passed;

		if (im->point != point || !im->keep)
			continue;
		passed = verdict_ok(raw_verdict(st, j));
		failing += !passed;
		for (size_t l = 0; l < pt->nlines; l++) {
			if (passed)
				ok[l] |= im->keep[l] != ADR_KEEP;
			else
				all[l] &= im->keep[l] != ADR_KEEP;
		}
	}
	for (size_t l = 0; l < pt->nlines; l++)
		left += all[l] && !ok[l];
	for (size_t l = 0; left && l < pt->nlines; l++)
		all[l] &= !ok[l];
	free(ok);
	if (!failing) {
		free(all);
		return NULL;
	}
	prefer_persisted(st, point, all);
	return all;
}

/* The suspects' sites (point_suspects()), as "suspect_sites" of a crash bug. */
static void add_suspects(struct crash_scenario_state *st, size_t i, struct symbolizer *sym)
{
	const struct image *im = &st->images[i];
	const struct adr_point *pt = &st->points[im->point];
	unsigned char *susp = point_suspects(st, im->point), *keep;
	struct record_map none = { NULL, 0 };
	json_t *tmp;

	if (!susp)
		return;
	/* No earlier value laid over any line. */
	keep = calloc(pt->nlines + pt->nversions + 1, 1);
	if (!keep)
		abort();
	/* The image that drops the suspects alone, attributed as any image. */
	for (size_t l = 0; l < pt->nlines; l++)
		keep[l] = susp[l] ? 0 : ADR_KEEP;
	tmp = json_pack("{s:s}", "verdict", "recovery-failed");
	attribute_image(tmp, pt, keep, &none, sym);
	json_object_set(st->checks[i].verdict, "suspect_sites", json_object_get(tmp, "dropped_sites") ?: json_array());
	json_object_set(st->checks[i].verdict, "suspect_lines", json_object_get(tmp, "dropped_lines") ?: json_integer(0));
	json_decref(tmp);
	free(keep);
	free(susp);
}

/*
 * Image i's verdict, added up in sums and written as image-NNN.json: 0, or
 * -1 when the disk is full (st->disk_full).
 */
static int judge_image(struct crash_scenario_state *st, const struct scenario *sc, const char *fs, size_t i,
		       struct symbolizer *sym, struct verdict_sums *sums)
{
	struct image *im = &st->images[i];
	struct check_item *chk = &st->checks[i];
	char path[PATH_MAX], why[WHY_MAX];
	int expected, keep, bug;
	const char *v;

	if (chk->same_as >= 0)
		chk->verdict = json_deep_copy(st->checks[chk->same_as].verdict);
	if (!chk->verdict)
		chk->verdict = json_pack("{s:s, s:s}", "verdict", "fs-corrupt", "checker_failure",
					 "the checker never reported on this image");
	json_object_set_new(chk->verdict, "image", json_integer(i));
	json_object_set_new(chk->verdict, "platform", json_string(st->platform));
	json_object_set_new(chk->verdict, "taken", json_string(im->why));
	json_object_set_new(chk->verdict, "acked", json_integer(chk->acked));
	if (st->blackbox)
		json_object_set_new(chk->verdict, "printed", json_integer(chk->printed));
	json_object_set_new(chk->verdict, "recheck",
		json_sprintf("build/pmem-harness crashcheck --fs %s --acks %s/acks.log --acked %zu --image %s",
			     fs, st->dir, chk->acked, im->path));
	if (im->point >= 0)
		add_adr_facts(st, i, sym);
	v = json_string_value(json_object_get(chk->verdict, "verdict"));
	bug = st->blackbox && !verdict_ok(v) && judge_by_reference(st, i, sums);
	if (bug && st->images[i].point >= 0)
		add_suspects(st, i, sym);
	if (!st->blackbox || bug)
		cause_tally_add(sums->causes, chk->verdict);
	json_object_set_new(sums->counts, v, json_integer(json_integer_value(json_object_get(sums->counts, v)) + 1));
	sums->losses += !strcmp(v, "lost") || !strcmp(v, "torn");
	/* A black box fails only by a crash bug: the rest is the target's. */
	if (st->blackbox)
		expected = !bug || strcmp(sc->expect, "intact");
	else
		expected = !((strcmp(v, "intact") && !strcmp(sc->expect, "intact")) || !strcmp(v, "fs-corrupt"));
	if (!expected)
		json_array_append_new(sums->unexpected, json_integer(i));
	/* Keep the evidence: every unexpected image and crash bug, one
	 * example of an allowed loss; KEEP=1 keeps all. */
	keep = st->opt->keep || !expected || bug || (!verdict_ok(v) && !sums->kept_example++);
	json_object_set_new(chk->verdict, "kept", json_boolean(keep));
	if (!keep)
		json_object_del(chk->verdict, "recheck");
	/* ADR images exist as files only when kept; an eADR twin's file
	 * may be the one another image's recheck names. */
	if (im->point >= 0 && keep && crash_image_write(st, im, im->path, 1) < 0)
		json_object_set_new(chk->verdict, "kept", json_false());
	else if (im->point < 0 && !keep)
		unlink(im->path);
	/* What crashbench and a user's own tools open. */
	if (json_is_true(json_object_get(chk->verdict, "kept")))
		json_object_set_new(chk->verdict, "file", json_string(im->path));
	snprintf(path, sizeof(path), "%s/image-%03zu.json", st->dir, i);
	if (json_write_atomic_why(path, chk->verdict, why, sizeof(why)) < 0) {
		if (disk_full_errno(errno)) {
			run_error_set(&st->disk_full, errno, "the disk under %s is full: writing %s failed", st->dir, path);
			return -1;
		}
		fprintf(stderr, "crashtest: %s\n", why);
	}
	return 0;
}

/*
 * A black-box row: how its images were chosen and what the oracle made of
 * the failures. The fence points are a sample whose rate is stated: one
 * in fence_period of the qualifying fences offered by the model, then one
 * in fence_stride of those.
 */
static void blackbox_facts(const struct crash_scenario_state *st, struct verdict_sums *sums, json_t *row)
{
	json_t *b = json_pack("{s:I, s:{s:I, s:I}, s:I, s:I, s:I}", "crash_bugs", (json_int_t)sums->crash_bugs,
			      "crash_bugs_by", "adr", (json_int_t)sums->crash_bugs_adr, "eadr",
			      (json_int_t)(sums->crash_bugs - sums->crash_bugs_adr),
			      "fail_without_crash", (json_int_t)sums->without_crash, "printed_lines",
			      (json_int_t)st->nprinted, "printed_lines_dropped", (json_int_t)st->printed_dropped);

	if (is_adr(st))
		json_object_set_new(b, "fence_points", json_pack("{s:I, s:I, s:I, s:I, s:I}", "offered",
								 (json_int_t)st->fences_offered, "by_program",
								 (json_int_t)st->user_fences_offered, "period",
								 (json_int_t)st->opt->adr.fence_period, "stride",
								 (json_int_t)st->fence_stride, "cap",
								 (json_int_t)st->opt->adr.fence_max));
	if (st->points_skipped)
		json_object_set_new(b, "points_skipped", json_integer(st->points_skipped));
	if (st->aware_mappings >= 0)
		json_object_set_new(b, "aware_mappings", json_integer(st->aware_mappings));
	if (json_object_size(sums->why_without))
		json_object_set(b, "why_without_crash", sums->why_without);
	if (sums->target_problem)
		json_object_set_new(b, "target_problem", sums->target_problem);
	sums->target_problem = NULL;
	json_object_set_new(row, "blackbox", b);
}

/* The scenario's row of summary.json, from its sums and how it ran. */
static json_t *scenario_row(struct crash_scenario_state *st, const struct scenario *sc, const char *fs,
			    struct verdict_sums *sums, const struct crash_row_facts *f, struct symbolizer *sym)
{
	json_t *row;
	int incomplete = 0;

	row = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:o, s:o, s:f, s:f, s:s, s:I}",
			"scenario", sc->name, "fs", fs, "mode", sc->mode, "platform", st->platform,
			"expect", sc->expect, "images", (json_int_t)st->nimages, "acks", (json_int_t)st->nacks,
			"verdicts", sums->counts, "unexpected_images", sums->unexpected,
			"seconds", now_s() - f->t0, "check_seconds", f->check_seconds, "writer",
			vm_status_name(f->status), "deduplicated", (json_int_t)f->twins);
	/* Where the time went: the writer (boot, program, crash points), and
	 * under ADR its saving of the points; check_seconds is the checkers'
	 * (while some image was with one, the writer running or not), and
	 * check_tail_seconds the part after the writer. */
	json_object_set_new(row, "writer_seconds", json_real(f->writer_seconds));
	json_object_set_new(row, "check_tail_seconds", json_real(f->check_tail_seconds));
	if (is_adr(st))
		json_object_set_new(row, "snapshot_seconds", json_real(st->snapshot_seconds));
	/* The writer's phases, where each was reached: setting up (the NVDIMM's
	 * copy, the model's files), the unmodelled boot, the program under the
	 * model, and its end (QEMU's exit, the points made images). */
	if (is_adr(st) && st->t_launch && st->t_model_start && st->t_done >= st->t_model_start)
		json_object_set_new(row, "writer_phases",
				    json_pack("{s:f, s:f, s:f, s:f}", "setup", st->t_launch - f->t0, "boot",
					      st->t_model_start - st->t_launch, "modelled",
					      st->t_done - st->t_model_start, "end",
					      f->t0 + f->writer_seconds - st->t_done));
	if (sc->kernel[0])
		json_object_set_new(row, "kernel", json_string(sc->kernel));
	/* Acks whose record still had lines pending: lost at that point under
	 * strict ADR, whether or not an image was taken there. */
	if (is_adr(st) && st->acks_pending)
		json_object_set_new(row, "acked_not_durable", json_integer(st->acks_pending));
	if (st->blackbox)
		blackbox_facts(st, sums, row);
	if (!strcmp(sc->expect, "lost") && !(st->blackbox ? sums->crash_bugs : sums->losses) &&
	    !(is_adr(st) && st->acks_pending))
		json_object_set_new(row, "missed", json_true());
	if (st->protocol_error[0])
		json_object_set_new(row, "protocol_error", json_string(st->protocol_error));
	else if (f->failure[0])
		json_object_set_new(row, "writer_failure", json_string(f->failure));
	json_object_set_new(row, "check_phases", checked_phases(st));
	if (json_object_size(sums->causes))
		json_object_set_new(row, "causes", cause_tally_list(sums->causes, 8));
	json_decref(sums->causes);
	json_decref(sums->why_without);
	if (is_adr(st)) {
		json_object_set_new(row, "model", model_json(st, sym, &incomplete));
		if (incomplete)
			json_object_set_new(row, "model_incomplete", json_true());
	}
	return row;
}

json_t *crash_judge(struct crash_scenario_state *st, const struct scenario *sc, const char *fs, const char *kernel,
		    const struct crash_row_facts *f)
{
	struct verdict_sums sums = {
		.counts = json_pack("{s:i, s:i, s:i, s:i}", "intact", 0, "lost", 0, "torn", 0, "fs-corrupt", 0),
		.unexpected = json_array(),
		.causes = json_object(),
		.why_without = json_object(),
	};
	struct symbolizer sym;
	json_t *row;
	size_t i;

	if (is_adr(st))
		user_symbolizer(st, kernel, &sym);
	for (i = 0; i < st->nimages; i++)
		if (judge_image(st, sc, fs, i, &sym, &sums) < 0) {
			crash_unjudged(st);
			json_decref(sums.counts);
			json_decref(sums.unexpected);
			json_decref(sums.causes);
			json_decref(sums.why_without);
			json_decref(sums.target_problem);
			if (is_adr(st))
				symbolizer_free(&sym);
			return NULL;
		}
	for (i = 0; i < st->nimages; i++) {
		json_decref(st->checks[i].verdict);
		st->checks[i].verdict = NULL;
		free(st->checks[i].map);
		st->checks[i].map = NULL;
		free(st->images[i].keep);
		st->images[i].keep = NULL;
	}
	row = scenario_row(st, sc, fs, &sums, f, &sym);
	if (is_adr(st)) {
		for (i = 0; i < st->npoints; i++) {
			unlink(st->points[i].adr);
			adr_point_free(&st->points[i]);
		}
		symbolizer_free(&sym);
	}
	return row;
}
