// SPDX-License-Identifier: GPL-2.0
/* Crash images of the emulated NVDIMM: see image.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "../lib/diskfull.h"
#include "image.h"

static int copy_range(int in, int out, off_t off, off_t len)
{
	while (len > 0) {
		ssize_t n = copy_file_range(in, &(loff_t){ off }, out, &(loff_t){ off }, len, 0);

		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL)) {
			char buf[1 << 16];

			n = pread(in, buf, len < (off_t)sizeof(buf) ? len : (off_t)sizeof(buf), off);
			if (n > 0 && pwrite(out, buf, n, off) != n)
				n = -1;
		}
		if (n <= 0)
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

/* Walk src's data extents; for each hole, call punch (may be NULL). */
static int copy_extents(int in, int out, off_t size, int punch_holes)
{
	off_t pos = 0;

	while (pos < size) {
		off_t data = lseek(in, pos, SEEK_DATA), hole;

		if (data < 0) {
			if (errno != ENXIO)
				return -1;
			data = size; /* only a hole is left */
		}
		if (punch_holes && data > pos &&
		    fallocate(out, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, pos, data - pos) < 0)
			return -1;
		if (data >= size)
			break;
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			return -1;
		if (copy_range(in, out, data, hole - data) < 0)
			return -1;
		pos = hole;
	}
	return 0;
}

int image_copy(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, ret = -1, err;
	struct stat st;

	if (in < 0 || fstat(in, &st) < 0)
		goto out;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || ftruncate(out, st.st_size) < 0)
		goto out;
	ret = copy_extents(in, out, st.st_size, 0);
out:
	err = errno;
	/* A full disk is the caller's to say, in the one line that stops the run. */
	if (ret < 0 && !disk_full_errno(err))
		fprintf(stderr, "crash image: copying %s to %s: %s\n", src, dst, strerror(err));
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0) {
		err = errno;
		ret = -1;
	}
	errno = err;	/* the caller tells a full disk from other failures */
	return ret;
}

int image_rewrite(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out = open(dst, O_WRONLY | O_CLOEXEC), ret = -1;
	struct stat a, b;

	if (in < 0 || out < 0 || fstat(in, &a) < 0 || fstat(out, &b) < 0)
		goto out;
	if (a.st_size != b.st_size) {
		errno = EINVAL;
		goto out;
	}
	ret = copy_extents(in, out, a.st_size, 1);
out:
	if (ret < 0)
		fprintf(stderr, "crash image: writing %s over %s: %s\n", src, dst, strerror(errno));
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ret;
}

off_t image_allocated(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? -1 : (off_t)st.st_blocks * 512;
}

void image_sum_block(struct image_sum *s, uint64_t off, const unsigned char *block, int sign)
{
	static const unsigned char zero[IMAGE_BLOCK];
	XXH128_hash_t h;

	if (!memcmp(block, zero, IMAGE_BLOCK))
		return; /* a zero block counts as a hole */
	h = XXH3_128bits_withSeed(block, IMAGE_BLOCK, off);
	s->hi += sign * h.high64;
	s->lo += sign * h.low64;
}

int image_sum(const char *path, struct image_sum *sum)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	static unsigned char buf[1 << 20];
	struct stat st;
	off_t pos = 0;
	int ret = -1;

	memset(sum, 0, sizeof(*sum));
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size % IMAGE_BLOCK)
		goto out;
	while (pos < st.st_size) {
		off_t data = lseek(fd, pos, SEEK_DATA), hole;

		if (data < 0)
			break; /* ENXIO: only a hole is left */
		data &= ~(off_t)(IMAGE_BLOCK - 1);
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			goto out;
		hole = (hole + IMAGE_BLOCK - 1) & ~(off_t)(IMAGE_BLOCK - 1);
		for (off_t o = data; o < hole;) {
			ssize_t n = pread(fd, buf, hole - o < (off_t)sizeof(buf) ? hole - o : (off_t)sizeof(buf), o);

			if (n <= 0 || n % IMAGE_BLOCK)
				goto out;
			for (ssize_t b = 0; b < n; b += IMAGE_BLOCK)
				image_sum_block(sum, o + b, buf + b, 1);
			o += n;
		}
		pos = hole;
	}
	ret = 0;
out:
	if (ret < 0)
		fprintf(stderr, "crash image: hashing %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
}

void image_sum_hex(const struct image_sum *s, char *hex, size_t hexsz)
{
	snprintf(hex, hexsz, "%016llx%016llx", (unsigned long long)s->hi, (unsigned long long)s->lo);
}
