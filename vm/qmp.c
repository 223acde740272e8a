// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal QMP client: QEMU sends one JSON object per line; replies carry
 * "return" or "error", anything with "event" is asynchronous and skipped.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qmp.h"

/* Next complete line as a JSON object, or NULL on timeout/EOF/garbage. */
static json_t *qmp_read(struct qmp *q, int timeout_ms)
{
	for (;;) {
		char *nl = memchr(q->buf, '\n', q->len);
		struct pollfd p[2] = { { .fd = q->fd, .events = POLLIN }, { .fd = q->side_fd, .events = POLLIN } };
		ssize_t n;

		if (nl) {
			json_error_t err;
			json_t *obj;

			*nl = '\0';
			obj = json_loads(q->buf, 0, &err);
			q->len -= nl + 1 - q->buf;
			memmove(q->buf, nl + 1, q->len);
			if (!obj)
				fprintf(stderr, "qmp: bad reply: %s\n", err.text);
			return obj;
		}
		if (q->len == sizeof(q->buf)) {
			fprintf(stderr, "qmp: reply longer than %zu bytes\n", sizeof(q->buf));
			q->lost = 1;
			return NULL;
		}
		if (poll(p, 2, timeout_ms) <= 0) {
			fprintf(stderr, "qmp: no reply within %d ms\n", timeout_ms);
			q->lost = 1;
			return NULL;
		}
		if (p[1].revents && q->side_ready) {
			q->side_ready(q->side_ctx);
			if (!p[0].revents)
				continue;
		}
		n = read(q->fd, q->buf + q->len, sizeof(q->buf) - q->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			q->lost = 1;
			return NULL;
		}
		q->len += n;
	}
}

int qmp_handshake(struct qmp *q, int fd, int timeout_ms)
{
	json_t *greeting, *ret;

	q->fd = fd;
	q->len = 0;
	q->lost = 0;
	q->side_fd = -1;
	greeting = qmp_read(q, timeout_ms);
	if (!greeting || !json_object_get(greeting, "QMP")) {
		json_decref(greeting);
		fprintf(stderr, "qmp: no greeting from QEMU\n");
		return -1;
	}
	json_decref(greeting);
	ret = qmp_execute(q, "qmp_capabilities", NULL, timeout_ms);
	if (!ret)
		return -1;
	json_decref(ret);
	return 0;
}

json_t *qmp_execute(struct qmp *q, const char *command, json_t *arguments, int timeout_ms)
{
	json_t *req = json_pack("{s:s}", "execute", command);
	char *text;
	int ok;

	if (arguments)
		json_object_set(req, "arguments", arguments);
	text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	ok = text && dprintf(q->fd, "%s\n", text) > 0;
	free(text);
	if (!ok) {
		fprintf(stderr, "qmp: %s: cannot send: %s\n", command, strerror(errno));
		q->lost = 1;
		return NULL;
	}
	for (;;) {
		json_t *reply = qmp_read(q, timeout_ms), *ret;

		if (!reply)
			return NULL;
		if (json_object_get(reply, "event")) {
			json_decref(reply);
			continue;
		}
		ret = json_object_get(reply, "return");
		if (ret) {
			json_incref(ret);
			json_decref(reply);
			return ret;
		}
		fprintf(stderr, "qmp: %s: %s\n", command,
			json_string_value(json_object_get(json_object_get(reply, "error"), "desc")));
		json_decref(reply);
		return NULL;
	}
}
