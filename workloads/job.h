/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fio-style job files for the mmap writer: [global] plus job sections,
 * parsed with libinih into one struct job per section. Options are a table
 * (job.c), in the shape of fio's parse.c: name, type, offset, default,
 * bounds, help.
 */
#ifndef PMEM_JOB_H
#define PMEM_JOB_H

#include <stddef.h>
#include <stdio.h>

#define JOB_NAME_MAX 64
#define JOB_MAX 64

enum rw_kind { RW_WRITE, RW_RANDWRITE, RW_READWRITE, RW_RANDRW };
enum prealloc_kind { PREALLOC_NONE, PREALLOC_FALLOCATE, PREALLOC_WRITE };
enum fault_kind { FAULT_PTE, FAULT_PMD };

struct job {
	char name[JOB_NAME_MAX];
	char filename[256];
	char directory[256];
	char map[16];			/* a map_modes[] name */
	char persist[16];		/* a persist_ops name */
	int rw;				/* enum rw_kind */
	unsigned long long bs;
	unsigned long long size;
	unsigned int numjobs;
	unsigned int loops;
	unsigned long long runtime;	/* seconds, 0 = none */
	int time_based;
	unsigned int fsync_every;	/* fio fsync=N */
	unsigned int fdatasync_every;	/* fio fdatasync=N */
	unsigned int rwmixread;		/* percent */
	unsigned long long randseed;
	unsigned int persist_every;
	int prealloc;			/* enum prealloc_kind */
	int fault_size;			/* enum fault_kind */
	int verify;			/* verifiable records, acknowledged to the host */
	unsigned long long offset;	/* I/O region starts here (fio offset=) */
};

struct job_file {
	struct job global;
	struct job jobs[JOB_MAX];
	int njobs;
};

/*
 * Parse path. Returns 0, or -1 after printing one line that names the file,
 * line, key and value, what is wrong and what would be right.
 */
int job_file_parse(const char *path, struct job_file *jf);
/* Same, from a string (for tests). */
int job_file_parse_string(const char *text, struct job_file *jf);
/* The help of every option, for --help. */
void job_options_help(FILE *f);
const char *rw_name(int rw);

#endif
