// SPDX-License-Identifier: GPL-2.0
/* The acknowledgements a writer guest sends: see ack_stream.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../proto/ack_line.h"
#include "ack_stream.h"

/* A decimal u64 and the character after it; -1 on anything else (a sign,
 * a space, a leading zero of a longer number, overflow). */
static int parse_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = *s - '0';

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	*p = s;
	return 0;
}

static struct ack_slot *slot_of(struct ack_stream *s, uint64_t off, uint64_t len)
{
	size_t mask = s->nslots - 1, i = ((off ^ len << 40) * 0x9e3779b97f4a7c15ULL >> 17) & mask;

	while (s->slots[i].off_plus_1 && (s->slots[i].off_plus_1 != off + 1 || s->slots[i].len != len))
		i = (i + 1) & mask;
	return &s->slots[i];
}

/* Room for one more offset: the table stays at most half full. */
static int reserve(struct ack_stream *s)
{
	struct ack_slot *old = s->slots;
	size_t n = s->nslots;

	if (2 * (s->used + 1) <= s->nslots)
		return 0;
	s->nslots = n ? 2 * n : 1024;
	s->slots = calloc(s->nslots, sizeof(*s->slots));
	if (!s->slots) {
		s->slots = old;
		s->nslots = n;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (old[i].off_plus_1)
			*slot_of(s, old[i].off_plus_1 - 1, old[i].len) = old[i];
	free(old);
	return 0;
}

#define REFUSE(...) (snprintf(why, whylen, __VA_ARGS__), ACK_REFUSED)

enum ack_take ack_stream_take(struct ack_stream *s, const char *line, struct ack_rec *rec,
			      char *why, size_t whylen)
{
	size_t max = s->max_acks ? s->max_acks : ACK_STREAM_MAX;
	const char *p = line + strlen(ACK_LINE_PREFIX);
	struct ack_slot *slot;
	uint64_t seq, off, len;

	if (strncmp(line, ACK_LINE_PREFIX, strlen(ACK_LINE_PREFIX)))
		return ACK_NOT_ACK;
	if (parse_u64(&p, &seq) || *p++ != ' ' || parse_u64(&p, &off) || *p++ != ' ' ||
	    parse_u64(&p, &len) || *p)
		return REFUSE("not \"ack <seq> <offset> <length>\" in plain decimal");
	if (s->n >= max)
		return REFUSE("more than %llu acks", (unsigned long long)max);
	if (!len)
		return REFUSE("a record of 0 bytes");
	if (off % len)
		return REFUSE("offset %llu is not a multiple of the length %llu",
			      (unsigned long long)off, (unsigned long long)len);
	if (off > s->limit || len > s->limit - off)
		return REFUSE("a record ending at %llu, past the device's %llu bytes",
			      (unsigned long long)(off + len < off ? UINT64_MAX : off + len),
			      (unsigned long long)s->limit);
	if (reserve(s) < 0)
		return REFUSE("no memory for %zu acks", s->n + 1);
	slot = slot_of(s, off, len);
	if (slot->off_plus_1 && seq <= slot->seq)
		return REFUSE("sequence %llu for the %llu bytes at %llu after %llu there: a record is claimed once, and a later one has a higher sequence",
			      (unsigned long long)seq, (unsigned long long)len, (unsigned long long)off,
			      (unsigned long long)slot->seq);
	if (!slot->off_plus_1)
		s->used++;
	*slot = (struct ack_slot){ off + 1, len, seq };
	s->n++;
	*rec = (struct ack_rec){ seq, off, len };
	return ACK_TAKEN;
}

void ack_stream_free(struct ack_stream *s)
{
	free(s->slots);
	s->slots = NULL;
	s->nslots = s->used = s->n = 0;
}

void ack_quote(const char *line, char *out, size_t out_len)
{
	size_t i, n = 0;

	if (!out_len)
		return;
	for (i = 0; line[i] && n + 1 < out_len; i++)
		out[n++] = line[i] >= ' ' && line[i] < 0x7f ? line[i] : '?';
	if (line[i] && out_len > 4)
		memcpy(out + out_len - 4, "...", 3), n = out_len - 1;
	out[n] = '\0';
}
