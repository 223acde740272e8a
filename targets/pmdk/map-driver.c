// SPDX-License-Identifier: GPL-2.0
/*
 * map-driver: insert keys into one of PMDK's example maps and say so.
 *
 *	map-driver <map_type> <pool file> <n> [remove]
 *
 * Creates the pool (or opens it), creates the map in its root (or keeps
 * the one there, after its own recovery: the map_ops' init), inserts the
 * keys driver_key(0..n-1) (map-common.h) the map does not hold yet, each
 * with a store_item value allocated as data_store allocates it, and after
 * each insert returns prints "inserted <key>" on stdout and flushes it:
 * every printed key was durable when it was printed, which map-check
 * verifies in a crash image.
 * With "remove", it then removes each of them again, as data_store does
 * (map_remove, no outer transaction), and prints "removed <key>" after
 * each removal returns: the removal paths of the maps, checked the same
 * way.
 * data_store cannot be checked so: on restart it throws its map away.
 *
 * Exit status: 0 done, 1 a pool or map operation failed (stderr says
 * which), 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "map-common.h"

static const char *prog = "map-driver";

static int fail(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, pmemobj_errormsg());
	return 1;
}

/* hashmap_atomic and hashmap_rp: the value is whole before it is linked. */
static int item_construct(PMEMobjpool *pop, void *ptr, void *arg)
{
	struct store_item *item = ptr;

	item->item_data = driver_value(*(uint64_t *)arg);
	pmemobj_persist(pop, item, sizeof(*item));
	return 0;
}

/*
 * The map's own recovery after a restart (hashmap_atomic finishes an
 * interrupted rebuild), with whatever it prints sent to stderr: stdout
 * carries "inserted" lines only.
 */
static int map_recover(struct map_ctx *mapc, const struct map_type *type, TOID(struct map) map)
{
	int out = dup(1), rc;

	if (!type->ops->init)
		return 0;
	fflush(stdout);
	if (out < 0 || dup2(2, 1) < 0)
		return -1;
	rc = map_init(mapc, map);
	fflush(stdout);
	dup2(out, 1);
	close(out);
	return rc;
}

static int insert(struct map_ctx *mapc, const struct map_type *type, TOID(struct map) map, uint64_t key)
{
	TOID(struct store_item) item;
	volatile int rc = 0;

	if (type->atomic) {
		if (POBJ_NEW(mapc->pop, &item, struct store_item, item_construct, &key))
			return -1;
		return map_insert(mapc, map, key, item.oid);
	}
	TX_BEGIN(mapc->pop) {
		item = TX_NEW(struct store_item);
		D_RW(item)->item_data = driver_value(key);
		rc = map_insert(mapc, map, key, item.oid);
		if (rc)
			pmemobj_tx_abort(EINVAL);
	} TX_ONABORT {
		if (!rc)
			rc = -1;
	} TX_END
	return rc;
}

int main(int argc, char *argv[])
{
	int removing = argc == 5 && !strcmp(argv[4], "remove");
	const struct map_type *type = argc == 4 || removing ? map_type_find(argv[1]) : NULL;
	char *end;
	unsigned long long n = type ? strtoull(argv[3], &end, 10) : 0;
	TOID(struct driver_root) root;
	struct map_ctx *mapc;
	PMEMobjpool *pop;
	int created = 0;

	if (!type || !*argv[3] || *end || n < 1 || n > 1000000) {
		fprintf(stderr, "usage: %s <" MAP_TYPE_NAMES "> <pool file> <n: 1..1000000> [remove]\n", prog);
		return 2;
	}
	if (access(argv[2], F_OK) == 0) {
		pop = pmemobj_open(argv[2], POBJ_LAYOUT_NAME(map_driver));
		if (!pop)
			return fail("pmemobj_open");
	} else {
		pop = pmemobj_create(argv[2], POBJ_LAYOUT_NAME(map_driver), driver_pool_size(n), 0666);
		if (!pop)
			return fail("pmemobj_create");
	}
	root = POBJ_ROOT(pop, struct driver_root);
	if (TOID_IS_NULL(root))
		return fail("pmemobj_root");
	mapc = map_ctx_init(type->ops, pop);
	if (!mapc)
		return fail("map_ctx_init");

	if (TOID_IS_NULL(D_RO(root)->map)) {
		volatile int rc = -1;

		if (type->atomic) {
			rc = map_create(mapc, &D_RW(root)->map, NULL);
		} else {
			TX_BEGIN(pop) {
				rc = map_create(mapc, &D_RW(root)->map, NULL);
			} TX_ONABORT {
				rc = -1;
			} TX_END
		}
		if (rc || TOID_IS_NULL(D_RO(root)->map))
			return fail("map_create");
		created = 1;
	} else if (map_check(mapc, D_RO(root)->map)) {
		fprintf(stderr, "%s: %s: the pool's map is not a %s\n", prog, argv[2], type->name);
		return 1;
	} else if (map_recover(mapc, type, D_RO(root)->map)) {
		return fail("map_init");
	}

	for (uint64_t i = 0; i < n; i++) {
		uint64_t key = driver_key(i);
		int rc;

		if (!created && map_lookup(mapc, D_RO(root)->map, key))
			continue;
		rc = insert(mapc, type, D_RO(root)->map, key);
		if (rc) {
			fprintf(stderr, "%s: map_insert %" PRIu64 " returned %d: %s\n", prog, key, rc,
				pmemobj_errormsg());
			return 1;
		}
		printf("inserted %" PRIu64 "\n", key);
		fflush(stdout);
	}
	for (uint64_t i = 0; removing && i < n; i++) {
		uint64_t key = driver_key(i);
		PMEMoid item = map_remove(mapc, D_RO(root)->map, key);

		if (OID_IS_NULL(item)) {
			fprintf(stderr, "%s: map_remove %" PRIu64 " found nothing: %s\n", prog, key, pmemobj_errormsg());
			return 1;
		}
		printf("removed %" PRIu64 "\n", key);
		fflush(stdout);
	}
	map_ctx_free(mapc);
	pmemobj_close(pop);
	return 0;
}
