// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: the host's side of the ADR model. What the plugin says about a
 * record comes from guest registers, so the host must refuse extents outside
 * the region or the record, too many extents, and lines that are not the
 * protocol's, without losing the crash point that follows. Also: the subset
 * masks (all subsets up to 4 lines; else prefixes in store order, drop-one,
 * keep-one, each capped, then the random ones), and the content hash of an
 * image built from a point.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "crash-inject/model/adr.h"
#include "crash-inject/image.h"
#include "tap.h"

/* Feed text to the model as the plugin would; return the last event. */
static enum adr_event feed(struct adr_model *m, int peer, const char *text, char *kind)
{
	enum adr_event e = ADR_EV_NONE;

	if (write(peer, text, strlen(text)) != (ssize_t)strlen(text))
		return ADR_EV_CLOSED;
	for (int i = 0; i < 200 && e != ADR_EV_POINT; i++) {
		e = adr_model_read(m, kind, 16);
		if (e == ADR_EV_CLOSED)
			break;
		if (!memchr(m->buf, '\n', m->len) && e == ADR_EV_NONE) {
			/* drained what was complete */
			char probe;

			if (recv(m->fd, &probe, 1, MSG_PEEK | MSG_DONTWAIT) <= 0)
				break;
		}
	}
	return e;
}

static void model(struct adr_model *m, int *peer)
{
	int sv[2];

	memset(m, 0, sizeof(*m));
	m->listen_fd = -1;
	m->region_size = 1 << 20;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		abort();
	m->fd = sv[0];
	*peer = sv[1];
}

int main(void)
{
	struct adr_model m;
	char kind[16] = "";
	int peer;
	enum adr_event e;
	unsigned char masks[ADR_MAX_MASKS * 8];
	unsigned int seed = 1;
	size_t n;

	tap_plan(17);

	model(&m, &peer);
	e = feed(&m, peer, "record 7 4096\nextent 0 8192 4096\npoint ack 1 3\n", kind);
	tap_result(e == ADR_EV_POINT && !strcmp(kind, "ack") && m.have_rec && m.rec.seq == 7 && m.rec.n == 1 &&
		   m.rec.ext[0].region_off == 8192 && !m.protocol_error[0] ? TAP_PASS : TAP_FAIL,
		   "a record, its extent and the ack point are taken", NULL);
	close(peer);
	close(m.fd);

	model(&m, &peer);
	e = feed(&m, peer, "record 7 4096\nextent 0 1048000 4096\npoint ack 1 3\n", kind);
	tap_result(e == ADR_EV_POINT && m.rec.n == 0 && m.protocol_error[0] ? TAP_PASS : TAP_FAIL,
		   "an extent past the region is refused and said; the point still comes", NULL);
	close(peer);
	close(m.fd);

	model(&m, &peer);
	e = feed(&m, peer, "record 7 4096\nextent 4000 0 4096\npoint ack 1 0\n", kind);
	tap_result(e == ADR_EV_POINT && m.rec.n == 0 && m.protocol_error[0] ? TAP_PASS : TAP_FAIL,
		   "an extent past the record's length is refused", NULL);
	close(peer);
	close(m.fd);

	model(&m, &peer);
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		fprintf(f, "record 1 1048576\n");
		for (int i = 0; i < 100; i++)
			fprintf(f, "extent %d %d 4096\n", i * 4096, i * 4096);
		fprintf(f, "point ack 1 0\n");
		fclose(f);
		e = feed(&m, peer, text, kind);
		free(text);
	}
	tap_result(e == ADR_EV_POINT && m.rec.n == ADR_MAX_EXTENTS && m.protocol_error[0] ? TAP_PASS : TAP_FAIL,
		   "no more than ADR_MAX_EXTENTS extents are kept for one record", NULL);
	close(peer);
	close(m.fd);

	model(&m, &peer);
	{
		static char longline[2000];

		memset(longline, 'x', sizeof(longline) - 2);
		longline[sizeof(longline) - 2] = '\n';
		e = feed(&m, peer, longline, kind);
		e = feed(&m, peer, "extent 1 2 3\npoint fence 2 5\n", kind);
	}
	tap_result(e == ADR_EV_POINT && !strcmp(kind, "fence") && m.protocol_error[0] ? TAP_PASS : TAP_FAIL,
		   "an endless line and an extent without a record are errors; the next point is read", NULL);
	/* Its guest never ran the start marker: a plugin that goes then is
	 * not the model's end (another QEMU's may connect, vm/saved_boot.h). */
	close(peer);
	e = adr_model_read(&m, kind, sizeof(kind));
	tap_result(e == ADR_EV_NONE && m.fd == -1 && !m.len ? TAP_PASS : TAP_FAIL,
		   "a model socket closed before the start marker waits for the next plugin", NULL);

	model(&m, &peer);
	e = feed(&m, peer, "start\n", kind);
	close(peer);
	e = adr_model_read(&m, kind, sizeof(kind));
	tap_result(m.started && e == ADR_EV_CLOSED ? TAP_PASS : TAP_FAIL,
		   "a model socket closed after the start marker is ADR_EV_CLOSED", NULL);

	{
		struct adr_params p = { .subsets = 20 };
		struct adr_line lines[3] = { { .off = 0 } };
		struct adr_subset what[ADR_MAX_MASKS];
		int seen[8] = { 0 }, ok;
		char name[16];

		n = adr_subsets(lines, NULL, 3, &p, &seed, masks, what, ADR_MAX_MASKS);
		ok = n == 6;
		for (size_t k = 0; k < n; k++) {
			int bits = (masks[k * 3] == ADR_KEEP) | (masks[k * 3 + 1] == ADR_KEEP) << 1 |
				   (masks[k * 3 + 2] == ADR_KEEP) << 2;

			adr_subset_name(&what[k], name, sizeof(name));
			ok &= bits != 0 && bits != 7 && !seen[bits]++ && what[k].family == ADR_SUB_ALL &&
			      name[0] == 's';
		}
		tap_result(ok ? TAP_PASS : TAP_FAIL, "3 pending lines: the 6 proper non-empty subsets", NULL);
	}
	{
		/* Without the structured families, the random masks of before. */
		struct adr_params p = { .subsets = 20 };
		struct adr_line lines[9] = { { .off = 0 } };
		struct adr_subset what[ADR_MAX_MASKS];
		unsigned int s1 = 5, s2 = 5, s3 = 5;
		unsigned char a[20 * 9], b[20 * 9];
		int ok = adr_subsets(lines, NULL, 9, &p, &s1, a, what, 20) == 20 &&
			 adr_subsets(lines, NULL, 9, &p, &s2, b, what, 20) == 20 && !memcmp(a, b, sizeof(a));

		for (size_t k = 0; k < 20 * 9; k++)
			ok &= a[k] == (rand_r(&s3) & 1 ? ADR_KEEP : 0);
		tap_result(ok ? TAP_PASS : TAP_FAIL,
			   "9 pending lines, --structured 0: 20 random subsets, the same for the same seed", NULL);
	}
	{
		/* 16 lines stored in a scrambled order: every family whole. */
		struct adr_params p = { .subsets = 20, .structured = 16 };
		struct adr_line lines[16];
		struct adr_subset what[ADR_MAX_MASKS];
		static unsigned char m[16 * ADR_MAX_MASKS];
		size_t count[5] = { 0 }, rank[16];
		char names[ADR_MAX_MASKS][16];
		int ok = 1;

		for (size_t i = 0; i < 16; i++) {
			lines[i] = (struct adr_line){ .off = i * ADR_LINE, .last_store = 100 + (i * 7) % 16 };
			rank[i] = (i * 7) % 16;	/* its place in store order */
		}
		n = adr_subsets(lines, NULL, 16, &p, &seed, m, what, ADR_MAX_MASKS);
		for (size_t k = 0; k < n; k++) {
			const unsigned char *mk = m + k * 16;
			size_t kept = 0;

			count[what[k].family]++;
			for (size_t i = 0; i < 16; i++) {
				kept += mk[i] == ADR_KEEP;
				ok &= mk[i] == 0 || mk[i] == ADR_KEEP;
				if (what[k].family == ADR_SUB_PREFIX)
					ok &= (mk[i] == ADR_KEEP) == (rank[i] < what[k].index);
				else if (what[k].family == ADR_SUB_DROP)
					ok &= (mk[i] == ADR_KEEP) == (rank[i] != what[k].index);
				else if (what[k].family == ADR_SUB_KEEP)
					ok &= (mk[i] == ADR_KEEP) == (rank[i] == what[k].index);
			}
			ok &= kept > 0 && kept < 16;
			adr_subset_name(&what[k], names[k], sizeof(names[k]));
			for (size_t j = 0; j < k; j++)
				ok &= strcmp(names[j], names[k]) != 0;
		}
		tap_result(ok && n == 15 + 16 + 16 + 20 && count[ADR_SUB_PREFIX] == 15 && count[ADR_SUB_DROP] == 16 &&
			   count[ADR_SUB_KEEP] == 16 && count[ADR_SUB_RANDOM] == 20 && !strcmp(names[0], "pre15") &&
			   !strcmp(names[15], "drop15") && !strcmp(names[31], "keep15") && !strcmp(names[47], "s00") ?
			   TAP_PASS : TAP_FAIL,
			   "16 pending lines, --structured 16: 15 prefixes in store order, 16 drop-one, 16 keep-one, then 20 random; names unique",
			   NULL);
	}
	{
		/* 40 lines, at most 8 of each: spread evenly, both ends of the store order in. */
		struct adr_params p = { .subsets = 0, .structured = 8 };
		struct adr_line lines[40];
		struct adr_subset what[ADR_MAX_MASKS];
		static unsigned char m[40 * ADR_MAX_MASKS];
		int pre_ends = 0, drop_ends = 0, keep_ends = 0;

		for (size_t i = 0; i < 40; i++)
			lines[i] = (struct adr_line){ .off = i * ADR_LINE, .last_store = 40 - i };
		n = adr_subsets(lines, NULL, 40, &p, &seed, m, what, ADR_MAX_MASKS);
		for (size_t k = 0; k < n; k++) {
			int end = what[k].family == ADR_SUB_PREFIX ? what[k].index == 1 || what[k].index == 39 :
				  what[k].index == 0 || what[k].index == 39;

			pre_ends += what[k].family == ADR_SUB_PREFIX && end;
			drop_ends += what[k].family == ADR_SUB_DROP && end;
			keep_ends += what[k].family == ADR_SUB_KEEP && end;
		}
		/* The line stored last is line 0: drop-one of rank 39 drops it alone. */
		tap_result(n == 24 && pre_ends == 2 && drop_ends == 2 && keep_ends == 2 && what[8].family == ADR_SUB_DROP &&
			   what[8].index == 39 && m[8 * 40] == 0 && m[8 * 40 + 1] == ADR_KEEP ?
			   TAP_PASS : TAP_FAIL, "40 pending lines, --structured 8: 8 of each family, the first and last in store order among them",
			   NULL);
		tap_result(adr_subsets(lines, NULL, 40, &p, &seed, m, what, 10) == 10 ? TAP_PASS : TAP_FAIL,
			   "no more masks than asked for", NULL);
	}
	{
		/* Torn lines: 3 lines, 2 of them with changed words; at most 3 of each torn family. */
		struct adr_params p = { .torn = 3 };
		struct adr_line lines[3] = { { .off = 0, .last_store = 3 }, { .off = 64, .last_store = 1 },
					     { .off = 128, .last_store = 2 } };
		unsigned char changed[3] = { 0x81, 0x00, 0x06 };	/* words 0, 7 of line 0; 1, 2 of line 2 */
		struct adr_subset what[ADR_MAX_MASKS];
		static unsigned char m[3 * ADR_MAX_MASKS];
		char name[16], names[64] = "";
		size_t torn = 0;
		int ok;

		n = adr_subsets(lines, changed, 3, &p, &seed, m, what, ADR_MAX_MASKS);
		for (size_t k = 0; k < n; k++) {
			if (what[k].family != ADR_SUB_TORN_DROP && what[k].family != ADR_SUB_TORN_KEEP)
				continue;
			torn++;
			adr_subset_name(&what[k], name, sizeof(name));
			strcat(strcat(names, " "), name);
		}
		/* In store order the pairs are (line 2, w1), (line 2, w2), (line 0, w0), (line 0, w7):
		 * 3 of 4 evenly, both ends in. The first image leaves word 7 of line 0 old. */
		ok = n == 6 + 6 && torn == 6 && what[6].family == ADR_SUB_TORN_DROP && m[6 * 3] == 0x7f &&
		     m[6 * 3 + 1] == ADR_KEEP && m[6 * 3 + 2] == ADR_KEEP && what[9].family == ADR_SUB_TORN_KEEP &&
		     m[9 * 3] == 0x80 && m[9 * 3 + 1] == 0 && m[9 * 3 + 2] == 0;
		tap_result(ok && !strcmp(names, " drop02w7 drop01w2 drop01w1 keep02w7 keep01w2 keep01w1") ?
			   TAP_PASS : TAP_FAIL, "--torn 3: one changed word of a line old in eADR, or new in strict ADR, 3 of each",
			   NULL);
		if (!ok)
			printf("# n %zu, torn %zu:%s\n", n, torn, names);
	}
	{
		/*
		 * Earlier values: line 0 (stored last) held two, line 2 (stored
		 * second) one; at most 2 of each family, spread over the three
		 * (line, value) pairs in store order: (line 2, v0), (line 0, v0),
		 * (line 0, v1). Masks are 3 lines + 3 values wide.
		 */
		struct adr_params p = { .history = 2 };
		struct adr_line lines[3] = { { .off = 0, .last_store = 3, .nversions = 2 },
					     { .off = 64, .last_store = 1 },
					     { .off = 128, .last_store = 2, .nversions = 1 } };
		struct adr_subset what[ADR_MAX_MASKS];
		static unsigned char m[6 * ADR_MAX_MASKS];
		char name[16], names[64] = "";
		size_t hist = 0, first = 0;
		int ok;

		n = adr_subsets(lines, NULL, 3, &p, &seed, m, what, ADR_MAX_MASKS);
		for (size_t k = 0; k < n; k++) {
			if (what[k].family != ADR_SUB_HIST_DROP && what[k].family != ADR_SUB_HIST_KEEP)
				continue;
			first = hist++ ? first : k;
			adr_subset_name(&what[k], name, sizeof(name));
			strcat(strcat(names, " "), name);
		}
		/* The first takes line 0 at its second earlier value (slot 3 + 1), every other line kept. */
		ok = adr_mask_width(lines, 3) == 6 && hist == 4 && n == 6 + 4 &&
		     !memcmp(m + first * 6, (unsigned char[]){ 0, ADR_KEEP, ADR_KEEP, 0, ADR_KEEP, 0 }, 6) &&
		     !memcmp(m + (first + 3) * 6, (unsigned char[]){ 0, 0, 0, 0, 0, ADR_KEEP }, 6) &&
		     !memcmp(m, (unsigned char[]){ ADR_KEEP, 0, 0, 0, 0, 0 }, 6);
		tap_result(ok && !strcmp(names, " drop02v1 drop01v0 keep02v1 keep01v0") ? TAP_PASS : TAP_FAIL,
			   "--history 2: a line at an earlier value in the eADR image, or alone in the strict one",
			   NULL);
		if (!ok)
			printf("# n %zu, hist %zu:%s\n", n, hist, names);
	}
	/* The content hash of a point's image equals the hash of the image written out. */
	{
		char dir[] = "/tmp/adr-unit.XXXXXX", adr[256], out[256], hex1[40], hex2[40];
		struct adr_line lines[2] = { { .off = 64 }, { .off = 8192 } };
		unsigned char cur[2][ADR_LINE], old[2][ADR_LINE] = { { 0 } }, keep[2] = { ADR_KEEP, ADR_KEEP };
		struct adr_point pt = { .lines = lines, .nlines = 2 };
		struct image_sum sum;
		FILE *f;
		int ok = mkdtemp(dir) != NULL;

		snprintf(adr, sizeof(adr), "%s/p.adr", dir);
		snprintf(out, sizeof(out), "%s/p.img", dir);
		f = ok ? fopen(adr, "w") : NULL;
		ok = f && ftruncate(fileno(f), 16384) == 0 && fputs("old bytes", f) >= 0;
		if (f)
			fclose(f);
		memset(cur[0], 0xaa, ADR_LINE);
		memset(cur[1], 0x55, ADR_LINE);
		pt.current = cur;
		snprintf(pt.adr, sizeof(pt.adr), "%s", adr);
		ok = ok && image_sum(adr, &pt.adr_sum) == 0;
		adr_image_key(&pt, keep, hex1, sizeof(hex1));
		ok = ok && adr_write_image(&pt, keep, out, 1) == 0 && image_sum(out, &sum) == 0;
		image_sum_hex(&sum, hex2, sizeof(hex2));
		tap_result(ok && !strcmp(hex1, hex2) ? TAP_PASS : TAP_FAIL,
			   "a point's image hashes the same unwritten and written out", NULL);
		/* Torn: word 0 of the first line new, the rest of it old. */
		memset(old[0], 0x11, ADR_LINE);
		pt.old = old;
		keep[0] = 1;
		keep[1] = 0;
		adr_image_key(&pt, keep, hex1, sizeof(hex1));
		ok = ok && adr_write_image(&pt, keep, out, 0) == 0 && image_sum(out, &sum) == 0;
		image_sum_hex(&sum, hex2, sizeof(hex2));
		{
			unsigned char got[ADR_LINE], want[ADR_LINE];
			int fd = open(out, O_RDONLY);

			memset(want, 0x11, ADR_LINE);
			memset(want, 0xaa, 8);
			ok = ok && fd >= 0 && pread(fd, got, ADR_LINE, 64) == ADR_LINE && !memcmp(got, want, ADR_LINE);
			if (fd >= 0)
				close(fd);
		}
		tap_result(ok && !strcmp(hex1, hex2) ? TAP_PASS : TAP_FAIL,
			   "a torn line is written word by word, and hashes the same unwritten", NULL);
		/* An earlier value of the second line laid over it, the first line kept. */
		{
			unsigned char k3[3] = { ADR_KEEP, 0, ADR_KEEP }, got[ADR_LINE];
			int fd;

			struct adr_version v = { .pc = 1 };

			lines[1].nversions = lines[1].versions_seen = 1;
			memset(v.bytes, 0x77, ADR_LINE);
			pt.versions = &v;
			pt.nversions = 1;
			ok = ok && adr_kept_version(&pt, k3, 1) == &v && !adr_kept_version(&pt, k3, 0);
			adr_image_key(&pt, k3, hex1, sizeof(hex1));
			ok = ok && adr_write_image(&pt, k3, out, 0) == 0 && image_sum(out, &sum) == 0;
			image_sum_hex(&sum, hex2, sizeof(hex2));
			fd = open(out, O_RDONLY);
			ok = ok && fd >= 0 && pread(fd, got, ADR_LINE, 8192) == ADR_LINE && got[0] == 0x77 &&
			     got[ADR_LINE - 1] == 0x77 && pread(fd, got, ADR_LINE, 64) == ADR_LINE && got[0] == 0xaa;
			if (fd >= 0)
				close(fd);
			tap_result(ok && !strcmp(hex1, hex2) ? TAP_PASS : TAP_FAIL,
				   "an earlier value is written over its line, and hashes the same unwritten", NULL);
		}
		unlink(adr);
		unlink(out);
		rmdir(dir);
	}
	return tap_exit();
}
