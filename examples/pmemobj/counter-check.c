// SPDX-License-Identifier: GPL-2.0
/*
 * The checker of counter.c and counter-notx.c, run by crashtest in each
 * recovered crash image's directory with PMEM_ACKED set to the number of
 * acknowledgements the host logged before the crash. Exit 0: consistent.
 *
 *  1. `pmempool check pool`: PMDK's own view of the pool's metadata;
 *  2. pmemobj_open(), which recovers an interrupted transaction as the
 *     program would on restart;
 *  3. the program's invariant: count >= PMEM_ACKED (an acknowledged record
 *     was committed), every record below count whole, every one past it
 *     zero (a transaction that did not commit left nothing behind).
 *
 * Every finding is one line on stderr (the checker guest's /tmp/check.log),
 * and the exit status says which step found it (the image JSON's
 * user_check_status): 1 the invariant, 2 pmempool check, 3 pmemobj_open,
 * 4 no pool or no root object although records were acknowledged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "counter.h"

extern char **environ;

static int pmempool_check(void)
{
	char *argv[] = { "pmempool", "check", COUNTER_POOL, NULL };
	int status, err;
	pid_t pid;

	err = posix_spawnp(&pid, "pmempool", NULL, NULL, argv, environ);
	if (err) {
		fprintf(stderr, "counter-check: cannot run pmempool: %s (install pmdk-tools)\n", strerror(err));
		return -1;
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "counter-check: pmempool check %s: the pool is not consistent\n", COUNTER_POOL);
		return -1;
	}
	return 0;
}

static int zero(const struct counter_rec *r)
{
	static const struct counter_rec z;

	return !memcmp(r, &z, sizeof(z));
}

static int unfinished(void)
{
	fprintf(stderr, "counter-check: nothing acknowledged yet: an unfinished pool breaks no promise\n");
	return 0;
}

int main(void)
{
	const char *env = getenv("PMEM_ACKED");
	unsigned long long acked = env ? strtoull(env, NULL, 10) : 0;
	struct counter_root *r;
	PMEMobjpool *pop;
	int bad = 0;

	/*
	 * pmemobj_create() is not atomic: a pool whose creation the crash cut
	 * short (no pool, a header and no pool descriptor yet, no root) is
	 * what PMDK leaves then, and the program had promised nothing. The
	 * ADR model's fence points fall there.
	 */
	if (access(COUNTER_POOL, F_OK)) {
		if (!acked)
			return 0;
		fprintf(stderr, "counter-check: %llu records acknowledged and no %s\n", acked, COUNTER_POOL);
		return 4;
	}
	if (pmempool_check() < 0)
		return acked ? 2 : unfinished();
	pop = pmemobj_open(COUNTER_POOL, COUNTER_LAYOUT);
	if (!pop) {
		fprintf(stderr, "counter-check: pmemobj_open: %s\n", pmemobj_errormsg());
		return acked ? 3 : unfinished();
	}
	if (pmemobj_root_size(pop) < sizeof(*r)) {
		pmemobj_close(pop);
		if (!acked)
			return 0;
		fprintf(stderr, "counter-check: %llu records acknowledged and no root object\n", acked);
		return 4;
	}
	r = pmemobj_direct(pmemobj_root(pop, sizeof(*r)));
	if (r->count < acked || r->count > COUNTER_RECORDS) {
		fprintf(stderr, "counter-check: count %llu, and %llu records were acknowledged\n",
			(unsigned long long)r->count, acked);
		bad = 1;
	}
	for (uint64_t i = 0; i < COUNTER_RECORDS; i++) {
		if (i < r->count && !counter_rec_valid(&r->recs[i], i)) {
			fprintf(stderr, "counter-check: record %llu is counted but not whole\n", (unsigned long long)i);
			bad = 1;
		} else if (i >= r->count && !zero(&r->recs[i])) {
			fprintf(stderr, "counter-check: record %llu is past the count (%llu) and not zero\n",
				(unsigned long long)i, (unsigned long long)r->count);
			bad = 1;
		}
	}
	pmemobj_close(pop);
	return bad;
}
