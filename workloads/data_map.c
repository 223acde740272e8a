// SPDX-License-Identifier: GPL-2.0
/* A crash file's place on the NVDIMM: see data_map.h. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "data_map.h"
#include "json_out.h"
#include "../proto/check_report.h"

/*
 * The guest physical address of dev's first byte: the resource of the
 * device under its disk, an fsdax (pfn) device's data area or a raw
 * namespace. 0 when it cannot be read.
 */
static uint64_t dev_phys(const char *dev)
{
	char path[PATH_MAX], real[PATH_MAX], buf[64] = "";
	uint64_t phys = 0;
	FILE *f;

	if (!realpath(dev, real))
		return 0;
	snprintf(path, sizeof(path), "/sys/block/%s/device/resource", basename(real));
	f = fopen(path, "r");
	if (f && fgets(buf, sizeof(buf), f))
		phys = strtoull(buf, NULL, 16);
	if (f)
		fclose(f);
	return phys;
}

void data_map_json(const char *path, const char *name, const char *dev, FILE *out)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[CHECK_MAX_EXTENTS];
	} req;
	uint64_t phys = dev_phys(dev);
	int fd = open(path, O_RDONLY);

	memset(&req, 0, sizeof(req));
	req.fm.fm_length = FIEMAP_MAX_OFFSET;
	req.fm.fm_extent_count = CHECK_MAX_EXTENTS;
	if (fd < 0 || !phys || ioctl(fd, FS_IOC_FIEMAP, &req.fm) < 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	fputs(",\"data_map\":{\"file\":", out);
	json_put_string(out, name);
	fprintf(out, ",\"dev_phys\":%" PRIu64 ",\"extents\":[", phys);
	for (unsigned int i = 0, n = 0; i < req.fm.fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &req.ext[i];

		/* No place on the device (yet), or not a whole-block one. */
		if (e->fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_NOT_ALIGNED))
			continue;
		fprintf(out, "%s[%llu,%llu,%llu]", n++ ? "," : "", (unsigned long long)e->fe_logical,
			(unsigned long long)e->fe_physical, (unsigned long long)e->fe_length);
	}
	fputs("]}", out);
}
