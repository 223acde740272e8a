/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filesystem table, vm-images/filesystems: one row per filesystem the
 * guests make and check. The build compiles it in (the harness and
 * pmem-checker read it wherever they run); guest scripts read the copy in
 * the initramfs.
 */
#ifndef PMEM_FILESYSTEMS_H
#define PMEM_FILESYSTEMS_H

#define FS_MAX 16

struct filesystem {
	char name[32];
	char type[16];
	char golden[64];
	char runs[64];
	char fsck[128];
	char mkfs[256];
	char defaults[64];	/* the "default" column: the runs that take it unasked */
};

/* The row named name, or NULL (also when the table is malformed: the
 * first call says why on stderr). */
const struct filesystem *fs_find(const char *name);

/* The row named name if it is offered to runs of kind ("bench",
 * "crashtest", "xfstests"), else NULL. */
const struct filesystem *fs_for(const char *name, const char *kind);

/* The names offered to kind (NULL: every row), ", " between, for messages. */
const char *fs_names(const char *kind);

/* The names a run of kind takes when given none ("bench", "quick",
 * "crashtest", "program", "xfstests": vm-images/filesystems says which is
 * which), blank-separated in the order of the rows; "" when none does.
 * The list stays as it is for the life of the program. */
const char *fs_defaults(const char *kind);

/* Parse a table's text into rows; the number of rows, or -1 with the
 * bad line's number in *bad_line. */
int fs_table_parse(const char *text, struct filesystem *rows, int max, int *bad_line);

#endif
