// SPDX-License-Identifier: GPL-2.0
/* The acknowledgement protocol: see ack.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../proto/ack_line.h"
#include "ack.h"
#include "channel.h"

static int ack_fd = -1;

int ack_open(void)
{
	if (ack_fd < 0)
		ack_fd = channel_open(CHANNEL_CTL);
	return ack_fd < 0 ? -1 : 0;
}

int ack(uint64_t seq, uint64_t off, size_t len)
{
	return ack_at(seq, off, len, NULL);
}

int ack_at(uint64_t seq, uint64_t off, size_t len, const void *addr)
{
	char line[128], want[64];

	if (ack_open() < 0)
		return -1;
	ack_marker(seq, addr, len);
	if (channel_printf(ack_fd, ACK_LINE_FMT, seq, off, (uint64_t)len) < 0 ||
	    channel_read_line(ack_fd, line, sizeof(line)) < 0)
		return -1;
	snprintf(want, sizeof(want), ACK_REPLY_FMT, seq);
	want[strcspn(want, "\n")] = '\0'; /* the line as read, without its end */
	if (strcmp(line, want)) {
		fprintf(stderr, "ack: host answered '%s' to ack %" PRIu64 "\n", line, seq);
		return -1;
	}
	return 0;
}

void ack_close(void)
{
	if (ack_fd >= 0)
		close(ack_fd);
	ack_fd = -1;
}
