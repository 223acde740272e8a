/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash images of the emulated NVDIMM. QEMU maps the backing file shared,
 * so every store the guest executed is in the file's page cache: a copy
 * taken while the guest is paused, or after kill -9, is the eADR crash
 * image (DESIGN.md section 3).
 */
#ifndef PMEM_IMAGE_H
#define PMEM_IMAGE_H

#include <sys/types.h>

/* Copy src to a new file dst, keeping holes (SEEK_DATA/SEEK_HOLE). */
int image_copy(const char *src, const char *dst);
/*
 * Overwrite dst in place with src's contents, same size, never truncating:
 * QEMU keeps dst mapped, and a truncation under its mapping would be a
 * SIGBUS. Holes in src are punched into dst.
 */
int image_rewrite(const char *src, const char *dst);
/* Bytes the file occupies on disk. */
off_t image_allocated(const char *path);

#endif
