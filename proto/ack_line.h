/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ack protocol on a guest's control port, both sides of it: the
 * program's library (workloads/ack.c) writes, the host's writer loop
 * (crash-inject/run/crash_writer.c, crash-inject/judge/ack_stream.c)
 * reads, logs and answers.
 *
 *   guest → host   ack <seq> <off> <len>\n   plain decimal, one space apart,
 *                                            nothing else on the line
 *   host → guest   ok <seq>\n                once the ack is in the host's log
 *
 * The program may go on only after the answer: an ack the host has not
 * logged is not an acknowledgement.
 */
#ifndef PMEM_PROTO_ACK_LINE_H
#define PMEM_PROTO_ACK_LINE_H

#include <inttypes.h>

#define ACK_LINE_PREFIX "ack "
#define ACK_LINE_FMT	ACK_LINE_PREFIX "%" PRIu64 " %" PRIu64 " %" PRIu64 "\n"
#define ACK_REPLY_FMT	"ok %" PRIu64 "\n"

#endif
