/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make xfstests: the test list, the documents an xfstests guest sends back
 * (xfstests/guest-run.sh), and the run's table of test x kernel x filesystem
 * with each kernel set beside its baseline (6.12-aware beside 6.12-stock).
 * The guest is untrusted: a document is taken only when every field has the
 * type, range and length the protocol allows.
 */
#ifndef RESULTS_XFSTESTS_H
#define RESULTS_XFSTESTS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#define XT_MAX_TESTS 256
#define XT_NAME_MAX 32		/* "generic/413" */
#define XT_REASON_MAX 512
#define XT_LINE_MAX (1 << 20)	/* one document; the guest sends 4 x 32 KiB tails */
#define XT_FILE_MAX (64 << 10)	/* one result file after JSON decoding */
#define XT_AWARE_MAX 100000000L	/* aware mappings one test may report */

enum xt_status { XT_NONE, XT_PASS, XT_FAIL, XT_NOTRUN };

/* xfstests/tests: one test per line with the reason it is on the list. */
struct xt_list {
	char name[XT_MAX_TESTS][XT_NAME_MAX];
	size_t n;
};

enum xt_kind { XT_DOC_NONE, XT_DOC_TEST, XT_DOC_ENV, XT_DOC_ERROR };

struct xt_doc {
	enum xt_kind kind;
	char test[XT_NAME_MAX];
	enum xt_status status;
	double seconds;
	long aware_mappings;		/* mappings FORCE_AWARE made with the flag */
	char reason[XT_REASON_MAX];	/* notrun/fail reason, or an error's message */
	json_t *files;			/* test: { "out.bad": "...", ... }; env: the document */
};

/* "generic/413": a directory of [a-z0-9] and a 3 or 4 digit number. */
int xt_name_valid(const char *s);
/* Whether a test applies to a filesystem: generic/ to all, ext4/ to ext4, xfs/ to xfs. */
int xt_test_applies(const char *test, const char *fs);
/* Load the test list; -1 with one line in why. */
int xt_list_load(const char *path, struct xt_list *l, char *why, size_t len);

/*
 * One line of guest output: XT_DOC_NONE for a line that is no document
 * (stray output, kept in guest.log), a kind with *d filled, or -1 with why
 * for a line that claims to be a document and breaks the protocol.
 * xt_doc_free() releases d->files.
 */
int xt_parse_line(const char *line, size_t len, struct xt_doc *d, char *why, size_t whylen);
void xt_doc_free(struct xt_doc *d);

const char *xt_status_name(enum xt_status s);
enum xt_status xt_status_parse(const char *s);

/*
 * The kernel a kernel's results are compared with: "6.12-stock" for any
 * "6.12-<something>" when that was run too, else none (NULL).
 */
const char *xt_baseline(const char *kernel, const char *const *kernels, size_t n);
/*
 * Set "baseline", "differs" and "regression" (a fail where the baseline
 * passed) on every result whose kernel has a baseline among kernels.
 */
void xt_compare_baselines(json_t *results, const char *const *kernels, size_t n);

/*
 * The run's table from its results array ({kernel, fs, test, status, reason,
 * baseline, differs, regression}): markdown to f. Returns the number of
 * regressions (fail where the baseline passed).
 */
int xt_table(FILE *f, json_t *results, json_t *kernels, json_t *fss);

#endif
