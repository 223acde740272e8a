// SPDX-License-Identifier: GPL-2.0
/*
 * map-check: is a crash image of map-driver's pool consistent with what
 * map-driver printed before the crash?
 *
 *	PMEM_PRINTED=<file> map-check <map_type> <pool file>
 *
 * PMEM_PRINTED names a file of the lines map-driver printed before the
 * crash point (complete lines; absent or empty: nothing printed; lines other
 * than "inserted K" and "removed K" are left out). The pool is opened with
 * pmemobj_open(), which replays or rolls back libpmemobj's logs, and the
 * map recovered with its own init (hashmap_atomic finishes an interrupted
 * rebuild there), as a restart would; the map's own check (the map_ops'
 * check) must pass, and every "inserted K" line's key must be found by
 * map_lookup(), with the value map-driver gave it (driver_value(K) in a
 * store_item), unless a "removed K" line follows it: then it must be gone.
 *
 * Before the first key was printed nothing was promised: no pool, a pool
 * whose pmemobj_create() the crash cut short, or no map yet, pass.
 *
 * Exit status (one line on stderr for each finding):
 *	0 consistent
 *	1 usage, or PMEM_PRINTED unreadable
 *	2 keys were printed and the pool is missing or pmemobj_open() failed
 *	3 the map's check or its init failed (or keys were printed and the root
 *	  has no map)
 *	4 a printed key is missing
 *	5 a printed key's value is wrong
 *	6 a key printed as removed is still there
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map-common.h"

enum { CONSISTENT, USAGE, OPEN_FAILED, CHECK_FAILED, KEY_MISSING, WRONG_VALUE, KEY_NOT_REMOVED };

static const char *prog = "map-check";

/* A growing list of keys. */
struct keys {
	uint64_t *v;
	size_t n, cap;
};

static void keys_add(struct keys *k, uint64_t key)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 1024;
		k->v = realloc(k->v, k->cap * sizeof(*k->v));
		if (!k->v)
			abort();
	}
	k->v[k->n++] = key;
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int removed(const struct keys *rem, uint64_t key)
{
	return rem->n && bsearch(&key, rem->v, rem->n, sizeof(key), cmp_key);
}

/* The keys printed as inserted, and (sorted) as removed, from $PMEM_PRINTED:
 * how many lines in all, or -1 when it cannot be read. */
static long read_printed(struct keys *ins, struct keys *rem)
{
	const char *path = getenv("PMEM_PRINTED");
	size_t linecap = 0;
	char *line = NULL;
	ssize_t len;
	FILE *f;

	if (!path || !*path || access(path, F_OK))
		return 0;
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	while ((len = getline(&line, &linecap, f)) > 0) {
		unsigned long long key;
		char nl;

		/* Complete "inserted K" and "removed K" lines only: any other says nothing. */
		if (line[len - 1] != '\n')
			break;
		if (sscanf(line, "inserted %llu%c", &key, &nl) == 2 && nl == '\n' && line[9] != '-')
			keys_add(ins, key);
		else if (sscanf(line, "removed %llu%c", &key, &nl) == 2 && nl == '\n' && line[8] != '-')
			keys_add(rem, key);
	}
	free(line);
	fclose(f);
	if (rem->n)
		qsort(rem->v, rem->n, sizeof(*rem->v), cmp_key);
	return (long)(ins->n + rem->n);
}

/* A value read from the image: in this pool, inside the file, a store_item. */
static int value_ok(PMEMoid root, off_t pool_size, PMEMoid value, uint64_t key)
{
	const struct store_item *item;

	if (OID_IS_NULL(value) || value.pool_uuid_lo != root.pool_uuid_lo || value.off < 4096 ||
	    value.off + sizeof(*item) > (uint64_t)pool_size)
		return 0;
	if (pmemobj_type_num(value) != TOID_TYPE_NUM(struct store_item))
		return 0;
	item = pmemobj_direct(value);
	return item && item->item_data == driver_value(key);
}

/* The first finding decides the status; the first 10 are told. */
static int finding(int status, int found, long *told)
{
	++*told;
	return status ? status : found;
}

int main(int argc, char *argv[])
{
	const struct map_type *type = argc == 3 ? map_type_find(argv[1]) : NULL;
	TOID(struct driver_root) root;
	TOID(struct map) map;
	struct map_ctx *mapc;
	PMEMobjpool *pop;
	struct keys ins = { 0 }, rem = { 0 };
	struct stat st;
	long printed, told = 0;
	int status = CONSISTENT;

	if (!type) {
		fprintf(stderr, "usage: PMEM_PRINTED=<file> %s <" MAP_TYPE_NAMES "> <pool file>\n", prog);
		return USAGE;
	}
	printed = read_printed(&ins, &rem);
	if (printed < 0)
		return USAGE;

	if (stat(argv[2], &st)) {
		if (!printed)
			return CONSISTENT;
		fprintf(stderr, "%s: %ld keys printed and no pool %s\n", prog, printed, argv[2]);
		return OPEN_FAILED;
	}
	pop = pmemobj_open(argv[2], POBJ_LAYOUT_NAME(map_driver));
	if (!pop) {
		if (!printed)
			return CONSISTENT;	/* a pmemobj_create() cut short */
		fprintf(stderr, "%s: %ld keys printed and pmemobj_open %s: %s\n", prog, printed, argv[2],
			pmemobj_errormsg());
		return OPEN_FAILED;
	}
	/* The map is created before the first key is printed. */
	if (pmemobj_root_size(pop) < sizeof(struct driver_root) ||
	    TOID_IS_NULL(D_RO(root = POBJ_ROOT(pop, struct driver_root))->map)) {
		pmemobj_close(pop);
		if (!printed)
			return CONSISTENT;
		fprintf(stderr, "%s: %ld keys printed and the root holds no map\n", prog, printed);
		return CHECK_FAILED;
	}
	map = D_RO(root)->map;
	mapc = map_ctx_init(type->ops, pop);
	if (!mapc) {
		fprintf(stderr, "%s: map_ctx_init failed\n", prog);
		return USAGE;
	}
	if (type->ops->check && map_check(mapc, map)) {
		fprintf(stderr, "%s: the map's check failed: the root's map is not a valid %s\n", prog, type->name);
		status = CHECK_FAILED;
	} else if (type->ops->init && map_init(mapc, map)) {
		fprintf(stderr, "%s: the map's init (its recovery) failed\n", prog);
		status = CHECK_FAILED;
	}
	for (size_t i = 0; i < ins.n && status != CHECK_FAILED; i++) {
		uint64_t key = ins.v[i];

		if (removed(&rem, key)) {
			/* Printed as removed: its removal was durable too. */
			if (map_lookup(mapc, map, key)) {
				if (told < 10)
					fprintf(stderr, "%s: key %" PRIu64 " (printed as removed) is still there\n",
						prog, key);
				status = finding(status, KEY_NOT_REMOVED, &told);
			}
		} else if (!map_lookup(mapc, map, key)) {
			if (told < 10)
				fprintf(stderr, "%s: key %" PRIu64 " (printed as inserted, line %zu) is missing\n",
					prog, key, i + 1);
			status = finding(status, KEY_MISSING, &told);
		} else if (!value_ok(root.oid, st.st_size, map_get(mapc, map, key), key)) {
			if (told < 10)
				fprintf(stderr, "%s: key %" PRIu64 " (line %zu) has a wrong value\n", prog, key,
					i + 1);
			status = finding(status, WRONG_VALUE, &told);
		}
	}
	if (told > 10)
		fprintf(stderr, "%s: %ld findings in all, the first 10 told\n", prog, told);
	map_ctx_free(mapc);
	pmemobj_close(pop);
	free(ins.v);
	free(rem.v);
	return status;
}
