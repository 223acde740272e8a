// SPDX-License-Identifier: GPL-2.0
/* Why an ADR crash image lost what it lost: see attribute.h. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "attribute.h"

#define MAX_SITES 16

struct site {
	uint64_t pc, caller;
	const char *why;
	size_t lines;
	char name[160];		/* stores of one source line share it */
};

static const struct adr_record *record_of(const struct record_map *m, uint64_t seq)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->records[i].n && m->records[i].seq == seq)
			return &m->records[i];
	return NULL;
}

static int inside(const struct adr_record *r, uint64_t off)
{
	for (size_t i = 0; i < r->n; i++)
		if (off + ADR_LINE > r->ext[i].region_off && off < r->ext[i].region_off + r->ext[i].len)
			return 1;
	return 0;
}

/* Group the dropped lines that pass the filter by (pc, why). */
static size_t group(const struct adr_point *pt, const unsigned char *keep, const struct adr_record *only,
		    struct symbolizer *sym, struct site *sites, size_t max, size_t *total)
{
	size_t n = 0;

	*total = 0;
	for (size_t i = 0; i < pt->nlines; i++) {
		const struct adr_line *l = &pt->lines[i];
		/*
		 * A line taken at an earlier value: the image's dropped lines
		 * name the store of that value, the value that reached the
		 * media alone. A record in the line lost its own bytes whatever
		 * the line held instead: its cause is the line's last store.
		 */
		const struct adr_version *v = only ? NULL : adr_kept_version(pt, keep, i);
		const char *why = v ? adr_version_why : adr_line_why(l);
		uint64_t pc = v ? v->pc : l->pc, caller = v ? v->caller : l->caller;
		size_t k;

		/* A line torn, some of its words kept and some not, is dropped in part. */
		if ((keep && keep[i] == ADR_KEEP) || (only && !inside(only, l->off)))
			continue;
		(*total)++;
		const char *name = symbolize_store(sym, pc, caller);

		for (k = 0; k < n; k++)
			if (sites[k].why == why && !strcmp(sites[k].name, name))
				break;
		if (k == n) {
			if (n == max)
				continue;
			sites[n] = (struct site){ pc, caller, why, 0, "" };
			snprintf(sites[n].name, sizeof(sites[n].name), "%s", name);
			n++;
		}
		sites[k].lines++;
	}
	/* Biggest first. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && sites[j].lines > sites[j - 1].lines; j--) {
			struct site t = sites[j];

			sites[j] = sites[j - 1];
			sites[j - 1] = t;
		}
	return n;
}

static json_t *sites_json(const struct site *sites, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:s, s:I}", "site", sites[i].name,
						   "pc", json_sprintf("0x%" PRIx64, sites[i].pc),
						   "why", sites[i].why, "lines", (json_int_t)sites[i].lines));
	return a;
}

static void add_causes(json_t *causes, json_t *seqs, const struct adr_point *pt, const unsigned char *keep,
		       const struct record_map *records, struct symbolizer *sym)
{
	struct site sites[MAX_SITES];
	size_t i, n, total;
	json_t *s;

	json_array_foreach(seqs, i, s) {
		const struct adr_record *r = record_of(records, json_integer_value(s));

		if (!r) {
			json_array_append_new(causes, json_pack("{s:O, s:n, s:s}", "seq", s, "site",
				"note", "where the record lies is unknown (acknowledged without its address)"));
			continue;
		}
		n = group(pt, keep, r, sym, sites, MAX_SITES, &total);
		if (!n) {
			json_array_append_new(causes, json_pack("{s:O, s:n, s:s}", "seq", s, "site", "note",
				"no dropped line lies in the record: lost through metadata or another file"));
			continue;
		}
		for (size_t k = 0; k < n; k++)
			json_array_append_new(causes, json_pack("{s:O, s:s, s:s, s:I}", "seq", s,
				"site", sites[k].name, "why", sites[k].why,
				"lines", (json_int_t)sites[k].lines));
	}
}

void attribute_image(json_t *verdict, const struct adr_point *pt, const unsigned char *keep,
		     const struct record_map *records, struct symbolizer *sym)
{
	struct site sites[MAX_SITES];
	size_t n, total;
	json_t *causes = json_array();

	n = group(pt, keep, NULL, sym, sites, MAX_SITES, &total);
	json_object_set_new(verdict, "dropped_lines", json_integer(total));
	json_object_set_new(verdict, "dropped_sites", sites_json(sites, n));
	add_causes(causes, json_object_get(verdict, "lost"), pt, keep, records, sym);
	add_causes(causes, json_object_get(verdict, "torn"), pt, keep, records, sym);
	json_object_set_new(verdict, "causes", causes);
}

/*
 * The tally is keyed by "why\nsite"; each entry counts the images that
 * blamed it and the distinct records (a set of seqs, dropped on listing).
 */
void cause_tally_add(json_t *tally, json_t *verdict)
{
	json_t *seen = json_object(), *causes = json_object_get(verdict, "causes"), *cause;
	const char *v = json_string_value(json_object_get(verdict, "verdict"));
	int per_record = json_array_size(causes) > 0;
	size_t i;

	/* A user's checker says only that the image lost something: then the
	 * image's dropped lines are its causes, with no record to name. */
	if (!per_record && v && (!strcmp(v, "lost") || !strcmp(v, "torn") || !strcmp(v, "recovery-failed") ||
				   !strcmp(v, "pool-corrupt")))
		causes = json_object_get(verdict, json_object_get(verdict, "suspect_sites") ? "suspect_sites" : "dropped_sites");
	json_array_foreach(causes, i, cause) {
		const char *site = json_string_value(json_object_get(cause, "site"));
		const char *why = json_string_value(json_object_get(cause, "why"));
		json_int_t seq = per_record ? json_integer_value(json_object_get(cause, "seq")) : -1;
		char key[400], seqkey[24];
		json_t *e;

		if (!site || !why)
			continue;
		snprintf(key, sizeof(key), "%s\n%s", why, site);
		e = json_object_get(tally, key);
		if (!e) {
			e = json_pack("{s:s, s:s, s:I, s:I, s:{}}", "site", site, "why", why, "images", (json_int_t)0,
				      "seq", seq, "seqs");
			json_object_set_new(tally, key, e);
		}
		snprintf(seqkey, sizeof(seqkey), "%" PRId64, (int64_t)seq);
		if (per_record)
			json_object_set(json_object_get(e, "seqs"), seqkey, json_true());
		if (!json_object_get(seen, key)) {
			json_object_set(seen, key, json_true());
			json_object_set_new(e, "images", json_integer(json_integer_value(json_object_get(e, "images")) + 1));
		}
	}
	json_decref(seen);
}

static json_int_t count(json_t *e, const char *key)
{
	return json_integer_value(json_object_get(e, key));
}

json_t *cause_tally_list(json_t *tally, size_t max)
{
	json_t *list = json_array(), *e;
	const char *key;
	size_t n;

	json_object_foreach(tally, key, e) {
		json_t *copy = json_pack("{s:O, s:O, s:O, s:I, s:O}", "site", json_object_get(e, "site"), "why",
					 json_object_get(e, "why"), "images", json_object_get(e, "images"), "records",
					 (json_int_t)json_object_size(json_object_get(e, "seqs")), "seq",
					 json_object_get(e, "seq"));
		size_t k;

		/* Insertion into a list kept biggest first. */
		for (k = 0; k < json_array_size(list); k++) {
			json_t *o = json_array_get(list, k);

			if (count(copy, "images") > count(o, "images") ||
			    (count(copy, "images") == count(o, "images") && count(copy, "records") > count(o, "records")))
				break;
		}
		json_array_insert_new(list, k, copy);
	}
	for (n = json_array_size(list); n > max; n--)
		json_array_remove(list, n - 1);
	return list;
}
