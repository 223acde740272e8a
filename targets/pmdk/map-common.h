/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What map-driver.c and map-check.c share: the pool's layout, the map
 * types (PMDK's example maps, src/examples/libpmemobj/map) and how a key's
 * value is made. Built against PMDK's example sources by
 * targets/pmdk/build.sh.
 *
 * The pool's root holds one map, as data_store's does; each value is a
 * struct store_item object, allocated as data_store allocates it (in the
 * insert's transaction for the transactional maps, POBJ_NEW with a
 * persisting constructor for hashmap_atomic and hashmap_rp), whose
 * item_data is derived from its key, so that a checker can tell a right
 * value from a wrong one.
 */
#ifndef MAP_COMMON_H
#define MAP_COMMON_H

#include <stdint.h>
#include <string.h>

#include "map.h"
#include "map_btree.h"
#include "map_ctree.h"
#include "map_hashmap_atomic.h"
#include "map_hashmap_rp.h"
#include "map_hashmap_tx.h"
#include "map_rbtree.h"
#include "map_skiplist.h"

POBJ_LAYOUT_BEGIN(map_driver);
POBJ_LAYOUT_ROOT(map_driver, struct driver_root);
POBJ_LAYOUT_TOID(map_driver, struct store_item);
POBJ_LAYOUT_END(map_driver);

struct store_item {
	uint64_t item_data;
};

struct driver_root {
	TOID(struct map) map;
};

struct map_type {
	const char *name;
	const struct map_ops *ops;
	int atomic;	/* 1: insert outside a transaction, as data_store does */
};

static const struct map_type map_types[] = {
	{ "ctree", MAP_CTREE, 0 },
	{ "btree", MAP_BTREE, 0 },
	{ "rbtree", MAP_RBTREE, 0 },
	{ "hashmap_atomic", MAP_HASHMAP_ATOMIC, 1 },
	{ "hashmap_tx", MAP_HASHMAP_TX, 0 },
	{ "hashmap_rp", MAP_HASHMAP_RP, 1 },
	{ "skiplist", MAP_SKIPLIST, 0 },
};

#define MAP_TYPE_NAMES "ctree|btree|rbtree|hashmap_atomic|hashmap_tx|hashmap_rp|skiplist"

static inline const struct map_type *map_type_find(const char *name)
{
	for (size_t i = 0; i < sizeof(map_types) / sizeof(map_types[0]); i++)
		if (!strcmp(map_types[i].name, name))
			return &map_types[i];
	return NULL;
}

/*
 * The i-th key (from 0): splitmix64's finalizer of i + 1, a bijection on
 * 64-bit integers that maps 0 alone to 0, so keys are distinct and nonzero.
 */
static inline uint64_t driver_key(uint64_t i)
{
	uint64_t z = i + 1;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A key's value: the item_data of the store_item its map entry points to. */
static inline uint64_t driver_value(uint64_t key)
{
	return ~key;
}

/* 8 MiB (data_store's PMEMOBJ_MIN_POOL), and room for large runs. */
static inline size_t driver_pool_size(uint64_t n)
{
	return PMEMOBJ_MIN_POOL + n * 1024;
}

#endif
