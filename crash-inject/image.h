/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash images of the emulated NVDIMM. QEMU maps the backing file shared,
 * so every store the guest executed is in the file's page cache: a copy
 * taken while the guest is paused, or after kill -9, is the eADR crash
 * image (DESIGN.md section 3).
 */
#ifndef PMEM_IMAGE_H
#define PMEM_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Copy src to a new file dst, keeping holes (SEEK_DATA/SEEK_HOLE). */
int image_copy(const char *src, const char *dst);
/*
 * Overwrite dst in place with src's contents, same size, never truncating:
 * QEMU keeps dst mapped, and a truncation under its mapping would be a
 * SIGBUS. Holes in src are punched into dst.
 */
int image_rewrite(const char *src, const char *dst);
/*
 * A content hash of an image: the sum of XXH3-128 hashes of its non-zero
 * 4 KiB blocks, each seeded with its offset. Equal contents give equal sums
 * whatever the holes, and a sum can be updated block by block, so an image
 * that differs from another in a few lines is hashed without writing it.
 * Identical crash images are checked once.
 */
#define IMAGE_BLOCK 4096
struct image_sum {
	uint64_t hi, lo;
};
int image_sum(const char *path, struct image_sum *sum);
/* Add (sign 1) or take out (sign -1) one block at offset off. */
void image_sum_block(struct image_sum *s, uint64_t off, const unsigned char *block, int sign);
void image_sum_hex(const struct image_sum *s, char *hex, size_t hexsz);
/* Bytes the file occupies on disk. */
off_t image_allocated(const char *path);

#endif
