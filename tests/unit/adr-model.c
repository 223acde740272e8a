// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: the host's side of the ADR model. What the plugin says about a
 * record comes from guest registers, so the host must refuse extents outside
 * the region or the record, too many extents, and lines that are not the
 * protocol's, without losing the crash point that follows. Also: the subset
 * masks, and the content hash of an image built from a point.
 */
#define _GNU_SOURCE
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
	unsigned char masks[64 * 8];
	unsigned int seed = 1;
	size_t n;

	tap_plan(9);

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
	close(peer);
	e = adr_model_read(&m, kind, sizeof(kind));
	tap_result(e == ADR_EV_CLOSED ? TAP_PASS : TAP_FAIL, "a closed model socket is ADR_EV_CLOSED", NULL);

	n = adr_subsets(3, 20, &seed, masks, 64);
	{
		int seen[8] = { 0 }, ok = n == 6;

		for (size_t k = 0; k < n; k++) {
			int bits = masks[k * 3] | masks[k * 3 + 1] << 1 | masks[k * 3 + 2] << 2;

			ok &= bits != 0 && bits != 7 && !seen[bits]++;
		}
		tap_result(ok ? TAP_PASS : TAP_FAIL, "3 pending lines: the 6 proper non-empty subsets", NULL);
	}
	{
		unsigned int s1 = 5, s2 = 5;
		unsigned char a[20 * 9], b[20 * 9];

		tap_result(adr_subsets(9, 20, &s1, a, 64) == 20 && adr_subsets(9, 20, &s2, b, 64) == 20 &&
			   !memcmp(a, b, sizeof(a)) ? TAP_PASS : TAP_FAIL,
			   "9 pending lines: 20 random subsets, the same for the same seed", NULL);
	}
	/* The content hash of a point's image equals the hash of the image written out. */
	{
		char dir[] = "/tmp/adr-unit.XXXXXX", adr[256], out[256], hex1[40], hex2[40];
		struct adr_line lines[2] = { { .off = 64 }, { .off = 8192 } };
		unsigned char cur[2][ADR_LINE], keep[2] = { 1, 1 };
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
		unlink(adr);
		unlink(out);
		rmdir(dir);
	}
	return tap_exit();
}
