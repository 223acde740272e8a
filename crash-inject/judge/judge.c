// SPDX-License-Identifier: GPL-2.0
/* The verdict on one crash image: see judge.h. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_phases.h"
#include "judge.h"

#define SEQ_LIST_MAX 64	/* seq numbers listed per kind; the count is exact */

/*
 * A slot run [first, last, state, seq]: all slots from first to last hold
 * the same (the guest writes runs of equal slots that way). The guest is
 * not trusted: a slot past JUDGE_MAX_SLOTS, a run that ends before it
 * starts, a state that is not V, Z, T or X, or runs that together set
 * more than twice JUDGE_MAX_SLOTS slots (overlapping on purpose, to keep
 * the host busy) fail the load. A later run overrides an earlier one.
 */
static int add_slots(struct check_report *r, size_t *cap, unsigned long long *work, unsigned long long first,
		     unsigned long long last, char state, uint64_t seq)
{
	if (first > last || last >= JUDGE_MAX_SLOTS || !strchr("VZTX", state) || !state)
		return -1;
	*work += last - first + 1;
	if (*work > 2 * JUDGE_MAX_SLOTS)
		return -1;
	if (last >= *cap) {
		size_t want = *cap ? *cap : 1024;
		char *slots;
		uint64_t *seqs;

		while (want <= last)
			want *= 2;
		slots = realloc(r->slots, want);
		if (slots)
			r->slots = slots;
		seqs = realloc(r->seqs, want * sizeof(*r->seqs));
		if (seqs)
			r->seqs = seqs;
		if (!slots || !seqs)
			return -1;
		*cap = want;
	}
	while (r->nslots <= last) {
		r->slots[r->nslots] = 'Z';
		r->seqs[r->nslots++] = 0;
	}
	for (; first <= last; first++) {
		r->slots[first] = state;
		r->seqs[first] = seq;
	}
	return 0;
}

static int sane_ms(const json_t *v, double *ms)
{
	if (!json_is_number(v))
		return 0;
	*ms = json_number_value(v);
	return isfinite(*ms) && *ms >= 0 && *ms < 3600e3;
}

/* The guest's phases, believed only when all four are there and sane:
 * negative, not finite or over an hour is a guest not to be trusted. */
static void load_phases(const json_t *phase, struct check_phases *p)
{
	static const char *const names[] = { "mount", "verify", "umount", "fsck" };
	double v[4];

	p->have_guest = 0;
	for (int k = 0; k < 4; k++)
		if (!sane_ms(json_object_get(phase, names[k]), &v[k]))
			return;
	memcpy(&p->ms[PHASE_MOUNT], v, sizeof(v));
	p->have_guest = 1;
}

/* An optional field: absent, or of the type is_type checks. */
static int optional(const json_t *doc, const char *key, int (*is_type)(const json_t *))
{
	const json_t *v = json_object_get(doc, key);

	return !v || is_type(v);
}

static int is_string(const json_t *v)
{
	return json_is_string(v);
}

static int is_array(const json_t *v)
{
	return json_is_array(v);
}

/* An exit status as the guest's run() gives it: 0 to 255. */
static int is_status(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 255;
}

/* An integer from 0 to max, or -1. */
static long long bounded(const json_t *v, unsigned long long max)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0 || (unsigned long long)json_integer_value(v) > max)
		return -1;
	return json_integer_value(v);
}

/* One crash file's entry: NULL, or why it is refused. */
static const char *load_file(struct check_report *r, const json_t *f, size_t *cap, unsigned long long *work)
{
	const json_t *missing = json_object_get(f, "missing"), *slots, *run;
	size_t i;

	if (!json_is_object(f) || !json_is_string(json_object_get(f, "name")) || !json_is_boolean(missing) ||
	    !optional(f, "error", is_string))
		return "a file is not an object with a name, missing true or false, and an error only as a string";
	if (json_is_true(missing)) {
		r->nofile = 1;
		return NULL;
	}
	slots = json_object_get(f, "slots");
	if (bounded(json_object_get(f, "size"), INT64_MAX) < 0 || !json_is_array(slots))
		return "a file that is there has no size of 0 or more, or no array of slots";
	r->size = json_integer_value(json_object_get(f, "size"));
	json_array_foreach(slots, i, run) {
		long long first = bounded(json_array_get(run, 0), INT64_MAX);
		long long last = bounded(json_array_get(run, 1), INT64_MAX);
		const char *state = json_string_value(json_array_get(run, 2));
		long long seq = bounded(json_array_get(run, 3), INT64_MAX);

		if (json_array_size(run) != 4 || first < 0 || last < 0 || seq < 0 || !state || strlen(state) != 1)
			return "a slot run is not [first, last, state, seq] of three integers of 0 or more and one letter";
		if (add_slots(r, cap, work, first, last, state[0], seq) < 0)
			return "a slot run ends before it starts, past JUDGE_MAX_SLOTS or in too many runs, "
			       "or its state is not V, Z, T or X";
	}
	return NULL;
}

/* A black-box program's "recover" and "pools": NULL, or why refused. */
static const char *load_recovery(struct check_report *r, const json_t *doc)
{
	const json_t *rec = json_object_get(doc, "recover"), *pools = json_object_get(doc, "pools"), *p;
	size_t i;

	if (rec) {
		const json_t *to = json_object_get(rec, "timed_out");

		if (!json_is_object(rec) || !is_status(json_object_get(rec, "status")) || !json_is_boolean(to) ||
		    !json_is_string(json_object_get(rec, "output")) || !optional(rec, "assertion", is_string))
			return "recover is not {status, timed_out, output[, assertion]}";
		r->recover_status = json_integer_value(json_object_get(rec, "status"));
		r->recover_timed_out = json_is_true(to);
		snprintf(r->recover_output, sizeof(r->recover_output), "%s",
			 json_string_value(json_object_get(rec, "output")));
		snprintf(r->recover_assertion, sizeof(r->recover_assertion), "%s",
			 json_string_value(json_object_get(rec, "assertion")) ?: "");
	}
	if (pools && (!json_is_array(pools) || json_array_size(pools) > 64))
		return "pools is not an array of at most 64";
	json_array_foreach(pools, i, p) {
		const json_t *st = json_object_get(p, "status");

		if (!json_is_string(json_object_get(p, "file")) || !is_status(st))
			return "a pool is not {file, status}";
		r->pools++;
		if (json_integer_value(st) && !r->pool_status) {
			r->pool_status = json_integer_value(st);
			snprintf(r->pool_file, sizeof(r->pool_file), "%s", json_string_value(json_object_get(p, "file")));
		}
	}
	return NULL;
}

/*
 * The data file's place ("data_map"): NULL, or why refused. Every number
 * is bounded so that the host's sums cannot wrap: a guest that lies here
 * can misplace its own records, no more.
 */
static const char *load_map(struct check_report *r, const json_t *doc)
{
	const json_t *m = json_object_get(doc, "data_map"), *exts, *e;
	const unsigned long long limit = 1ULL << 52;	/* 4 PiB: past any NVDIMM */
	size_t i;

	if (!m)
		return NULL;
	exts = json_object_get(m, "extents");
	if (!json_is_object(m) || !json_is_string(json_object_get(m, "file")) ||
	    bounded(json_object_get(m, "dev_phys"), limit) < 0 || !json_is_array(exts) ||
	    json_array_size(exts) > CHECK_MAX_EXTENTS)
		return "data_map is not {file, dev_phys, extents} with at most CHECK_MAX_EXTENTS extents";
	r->map = calloc(1, sizeof(*r->map));
	if (!r->map)
		return "no memory for its data_map";
	r->map->dev_phys = json_integer_value(json_object_get(m, "dev_phys"));
	json_array_foreach(exts, i, e) {
		long long l = bounded(json_array_get(e, 0), limit), p = bounded(json_array_get(e, 1), limit);
		long long n = bounded(json_array_get(e, 2), limit);

		if (json_array_size(e) != 3 || l < 0 || p < 0 || n <= 0)
			return "a data_map extent is not [logical, physical, length] of integers below 2^52, its length above 0";
		r->map->ext[i].logical = l;
		r->map->ext[i].physical = p;
		r->map->ext[i].len = n;
		r->map->n++;
	}
	return NULL;
}

/* Why doc is no document on image, or NULL. */
static const char *header(const json_t *doc, long image)
{
	const json_t *schema = json_object_get(doc, "schema"), *img = json_object_get(doc, "image");
	const char *kind = json_string_value(json_object_get(doc, "kind"));

	if (!json_is_object(doc))
		return "not a JSON object";
	if (!json_is_integer(schema) || json_integer_value(schema) != CHECK_DOC_SCHEMA)
		return "another schema than 1: the checker's guest image is older or newer than the harness (make images)";
	if (!kind || strcmp(kind, CHECK_DOC_KIND))
		return "its kind is not check";
	if (!json_is_integer(img) || json_integer_value(img) != image)
		return "it is not on this image";
	return NULL;
}

int check_doc_is_other(const json_t *doc, long image)
{
	const json_t *schema = json_object_get(doc, "schema"), *kind = json_object_get(doc, "kind");
	const json_t *img = json_object_get(doc, "image");

	if (!json_is_integer(schema) || json_integer_value(schema) != CHECK_DOC_SCHEMA)
		return 0;
	return (json_is_string(kind) && strcmp(json_string_value(kind), CHECK_DOC_KIND)) ||
	       (json_is_integer(img) && json_integer_value(img) != image);
}

int check_report_load(const char *text, size_t len, long image, struct check_report *r, struct check_phases *p,
		      char *why, size_t whylen)
{
	const json_t *files, *f, *mounted;
	unsigned long long work = 0;
	const char *refused = NULL;
	size_t cap = 0, i;
	json_error_t err;
	json_t *doc;

	memset(r, 0, sizeof(*r));
	r->fsck_status = -1;
	r->user_check = -1;
	r->recover_status = -1;
	if (p)
		p->have_guest = 0;
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (!doc) {
		snprintf(why, whylen, "%s", len ? err.text : "empty: no line, or a line of 4 MiB or more");
		return -1;
	}
	refused = header(doc, image);
	if (refused)
		goto out;
	/* The phases are the guest's clock, not its verdict: read whatever
	 * the rest of the document is. */
	if (p)
		load_phases(json_object_get(doc, "phase"), p);
	mounted = json_object_get(doc, "mounted");
	files = json_object_get(doc, "files");
	if (!json_is_boolean(mounted) || !is_status(json_object_get(doc, "fsck")) ||
	    !optional(doc, "user_check", is_status) || !optional(doc, "files", is_array) ||
	    !optional(doc, "mount_error", is_string) || !optional(doc, "umount_error", is_string) ||
	    !optional(doc, "flush_errors", is_array)) {
		refused = "mounted is not true or false, fsck or user_check not an exit status, "
			  "or files, mount_error, umount_error or flush_errors of another type";
		goto out;
	}
	r->mounted = json_is_true(mounted);
	r->fsck_status = json_integer_value(json_object_get(doc, "fsck"));
	if (json_object_get(doc, "user_check"))
		r->user_check = json_integer_value(json_object_get(doc, "user_check"));
	refused = load_recovery(r, doc);
	if (!refused)
		refused = load_map(r, doc);
	json_array_foreach(files, i, f)
		if (!refused && (refused = load_file(r, f, &cap, &work)))
			break;
out:
	json_decref(doc);
	if (!refused)
		return 0;
	snprintf(why, whylen, "%s", refused);
	check_report_free(r);
	return -1;
}

void check_report_free(struct check_report *r)
{
	free(r->slots);
	free(r->seqs);
	free(r->map);
	memset(r, 0, sizeof(*r));
}

static void note(json_t *list, size_t *count, uint64_t seq)
{
	if ((*count)++ < SEQ_LIST_MAX)
		json_array_append_new(list, json_integer(seq));
}

json_t *judge(const struct check_report *r, const struct ack_rec *acks, size_t nacked)
{
	json_t *lost = json_array(), *torn = json_array();
	size_t i, nlost = 0, ntorn = 0;
	const char *verdict;

	/* A user's checker replaces the record verifier: non-zero = inconsistent. */
	if (r->user_check > 0)
		nlost = 1;
	/* A black box without a checker has no records to read. */
	for (i = 0; i < nacked && r->mounted && r->user_check < 0 && r->recover_status < 0; i++) {
		const struct ack_rec *a = &acks[i];
		size_t slot = a->len ? a->off / a->len : 0;

		if (r->nofile || slot >= r->nslots)
			note(lost, &nlost, a->seq);
		else if (r->slots[slot] == 'V' && r->seqs[slot] == a->seq)
			continue;
		else if (r->slots[slot] == 'T' && r->seqs[slot] == a->seq)
			note(torn, &ntorn, a->seq);
		else if (r->slots[slot] == 'V' && r->seqs[slot] > a->seq)
			continue; /* overwritten by a later record: not a loss */
		else
			note(lost, &nlost, a->seq);
	}
	if (r->checker_failure[0] || !r->mounted || r->fsck_status != 0)
		verdict = "fs-corrupt";
	else if (r->recover_status > 0)
		verdict = "recovery-failed";
	else if (r->pool_status)
		verdict = "pool-corrupt";
	else if (ntorn)
		verdict = "torn";
	else if (nlost)
		verdict = "lost";
	else
		verdict = r->recover_status == 0 ? "recovered" : "intact";
	json_t *v = json_pack("{s:s, s:I, s:I, s:o, s:I, s:o, s:b, s:i, s:b, s:I, s:s}",
			 "verdict", verdict, "acked", (json_int_t)nacked,
			 "lost_count", (json_int_t)nlost, "lost", lost,
			 "torn_count", (json_int_t)ntorn, "torn", torn,
			 "mounted", r->mounted, "fsck_status", r->fsck_status,
			 "file_missing", r->nofile, "file_size", (json_int_t)r->size,
			 "checker_failure", r->checker_failure);

	if (r->user_check >= 0)
		json_object_set_new(v, "user_check_status", json_integer(r->user_check));
	if (r->recover_status >= 0) {
		json_object_set_new(v, "recover_status", json_integer(r->recover_status));
		json_object_set_new(v, "recover_timed_out", json_boolean(r->recover_timed_out));
		json_object_set_new(v, "recover_output", json_string(r->recover_output));
		if (r->recover_assertion[0])
			json_object_set_new(v, "recover_assertion", json_string(r->recover_assertion));
		json_object_set_new(v, "pools_checked", json_integer(r->pools));
		if (r->pool_status)
			json_object_set_new(v, "pool_check", json_pack("{s:s, s:i}", "file", r->pool_file,
								  "status", r->pool_status));
	}
	return v;
}

int ack_log_load(const char *path, struct ack_rec **acks, size_t *n)
{
	FILE *f = fopen(path, "r");
	unsigned long long seq, off;
	size_t len, cap = 0;
	char line[256];
	int bad = 0;

	*acks = NULL;
	*n = 0;
	if (!f)
		return -1;
	while (!bad && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %llu %zu", &seq, &off, &len) != 3) {
			bad = 1;
			break;
		}
		if (*n == cap) {
			struct ack_rec *more = realloc(*acks, (cap = cap ? 2 * cap : 1024) * sizeof(**acks));

			if (!more) {
				bad = 1;
				break;
			}
			*acks = more;
		}
		(*acks)[(*n)++] = (struct ack_rec){ seq, off, len };
	}
	fclose(f);
	return bad ? -1 : 0;
}
