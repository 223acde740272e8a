/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal QMP client over an already connected socket. */
#ifndef HARNESS_QMP_H
#define HARNESS_QMP_H

#include <jansson.h>

struct qmp {
	int fd;
	char buf[65536];
	size_t len;
	int lost;	/* the connection failed: EOF, a send error, no reply in time */
	/* Another descriptor to serve while a reply is awaited (-1: none): a
	 * reply to "stop" can wait on a vCPU that a plugin holds until this
	 * descriptor is read and answered. */
	int side_fd;
	void (*side_ready)(void *ctx);
	void *side_ctx;
};

/* Read the greeting and leave capabilities negotiation mode. */
int qmp_handshake(struct qmp *q, int fd, int timeout_ms);
/* Run one command; returns its "return" value (new reference) or NULL and
 * prints the QMP error. Asynchronous events met on the way are skipped. */
json_t *qmp_execute(struct qmp *q, const char *command, json_t *arguments, int timeout_ms);

#endif
