/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a black-box program printed, both sides of it: the guest's
 * `pmem-agent print` (workloads/agent.c) runs the program with its stdout
 * on a pty and sends each line it prints on the control port; the host's
 * writer loop (crash-inject/run/crash_writer.c) keeps them, in order, and
 * counts at every crash point how many had arrived. The checker guest
 * gets those lines of each image (workloads/checker.c) as the file named
 * by PMEM_PRINTED.
 *
 *   writer → host    print <text>\n      one line the program printed
 *   host → checker   > <text>\n          after "image ...", as many as it says
 *
 * text is printable ASCII (anything else is sent as '?'), at most
 * PRINT_TEXT_MAX bytes: a longer line is cut there. A line printed before
 * a crash point but still on its way when the point was taken is missing
 * from that image's lines: a checker may then expect less, never more.
 */
#ifndef PMEM_PROTO_PRINT_LINE_H
#define PMEM_PROTO_PRINT_LINE_H

#define PRINT_LINE_PREFIX "print "
#define PRINTED_LINE_PREFIX "> "
#define PRINT_TEXT_MAX 1000
/* Lines the host keeps per program run; what comes later is not kept. */
#define PRINT_LINES_MAX 100000

#endif
