/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting fs_dax tracepoints through tracefs: enable a set of events, clear
 * the buffer, run, then count events per inode from the text trace.
 */
#ifndef PMEM_TRACEFS_H
#define PMEM_TRACEFS_H

#define TRACEFS "/sys/kernel/tracing"

/* The fs_dax events the harness counts, in report order. */
enum dax_event {
	EV_PTE_FAULT_DONE,	/* dax_pte_fault_done */
	EV_PMD_FAULT_DONE,	/* dax_pmd_fault_done, any result */
	EV_PMD_FALLBACK,	/* dax_pmd_fault_done that fell back to PTEs */
	EV_INSERT_PFN_MKWRITE,	/* dax_insert_pfn_mkwrite: MAP_SYNC fault tail */
	EV_WRITEBACK_RANGE,	/* dax_writeback_range: one per msync/fsync walk */
	EV_WRITEBACK_ONE,	/* dax_writeback_one: one per dirty entry flushed */
	EV_COUNT,
};

struct dax_counts {
	unsigned long n[EV_COUNT];
};

const char *dax_event_name(enum dax_event e);
/* Enable the events and start from an empty buffer; -1 (message printed)
 * when tracefs or the events are missing. */
int tracefs_start(void);
/* Stop tracing and count the events of inode ino (0: all inodes). */
int tracefs_count(unsigned long ino, struct dax_counts *c);
int tracefs_write(const char *file, const char *value);

#endif
