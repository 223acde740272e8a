/* SPDX-License-Identifier: GPL-2.0 */
/* pmem-harness subcommands, one cmd-*.c each (the ndctl layout). */
#ifndef HARNESS_BUILTIN_H
#define HARNESS_BUILTIN_H

int cmd_run(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_crashtest(int argc, char **argv);
int cmd_crashcheck(int argc, char **argv);
int cmd_crashbench(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_xfstests(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_unit(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_filesystems(int argc, char **argv);

/* --help or -h: every command takes either as its first argument. */
int is_help_arg(const char *arg);

#endif
