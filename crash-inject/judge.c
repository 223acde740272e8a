// SPDX-License-Identifier: GPL-2.0
/* The verdict on one crash image: see judge.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"

#define SEQ_LIST_MAX 64	/* seq numbers listed per kind; the count is exact */

/*
 * A slot line is "<slot> <state> <seq>", or "<first>-<last> <state> <seq>"
 * for a run of slots that all hold the same (pmem-checker writes runs of
 * zero slots that way). The guest is not trusted: a slot past
 * JUDGE_MAX_SLOTS or a state that is not V, Z, T or X fails the parse.
 */
static int add_slots(struct check_report *r, size_t *cap, unsigned long long first,
		     unsigned long long last, char state, uint64_t seq)
{
	if (first > last || last >= JUDGE_MAX_SLOTS || !strchr("VZTX", state) || !state)
		return -1;
	if (last >= *cap) {
		size_t want = *cap ? *cap : 1024;

		while (want <= last)
			want *= 2;
		r->slots = realloc(r->slots, want);
		r->seqs = realloc(r->seqs, want * sizeof(*r->seqs));
		if (!r->slots || !r->seqs)
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

int check_report_parse(const char *text, struct check_report *r)
{
	const char *line = text;
	size_t cap = 0;

	memset(r, 0, sizeof(*r));
	r->fsck_status = -1;
	r->user_check = -1;
	while (line && *line) {
		unsigned long long first, last, seq;
		char state;
		int rc;

		if (!strncmp(line, "mount ok", 8))
			r->mounted = 1;
		else if (sscanf(line, "usercheck %d", &rc) == 1)
			r->user_check = rc;
		else if (sscanf(line, "fsck %d", &rc) == 1)
			r->fsck_status = rc;
		else if (!strncmp(line, "nofile", 6))
			r->nofile = 1;
		else if (sscanf(line, "size %lld", &r->size) == 1)
			;
		else if (sscanf(line, "%llu-%llu %c %llu", &first, &last, &state, &seq) == 4) {
			if (add_slots(r, &cap, first, last, state, seq) < 0)
				goto bad;
		} else if (sscanf(line, "%llu %c %llu", &first, &state, &seq) == 3) {
			if (add_slots(r, &cap, first, first, state, seq) < 0)
				goto bad;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
bad:
	check_report_free(r);
	return -1;
}

void check_report_free(struct check_report *r)
{
	free(r->slots);
	free(r->seqs);
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
	for (i = 0; i < nacked && r->mounted && r->user_check < 0; i++) {
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
	else if (ntorn)
		verdict = "torn";
	else if (nlost)
		verdict = "lost";
	else
		verdict = "intact";
	json_t *v = json_pack("{s:s, s:I, s:I, s:o, s:I, s:o, s:b, s:i, s:b, s:I, s:s}",
			 "verdict", verdict, "acked", (json_int_t)nacked,
			 "lost_count", (json_int_t)nlost, "lost", lost,
			 "torn_count", (json_int_t)ntorn, "torn", torn,
			 "mounted", r->mounted, "fsck_status", r->fsck_status,
			 "file_missing", r->nofile, "file_size", (json_int_t)r->size,
			 "checker_failure", r->checker_failure);

	if (r->user_check >= 0)
		json_object_set_new(v, "user_check_status", json_integer(r->user_check));
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
