/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a crash file's bytes lie on the NVDIMM, for the checker's report
 * ("data_map", proto/check_report.h): the file's extents (FIEMAP) and the
 * guest physical address of the block device's first byte. With them the
 * host places a record acknowledged by ack() alone, which names no
 * address, in the ADR model's region, and can blame its dropped lines.
 */
#ifndef PMEM_DATA_MAP_H
#define PMEM_DATA_MAP_H

#include <stdio.h>

/*
 * Write ,"data_map":{...} for the file at path on the block device dev.
 * Nothing when either cannot be learned (no such file, no FIEMAP, no
 * sysfs resource): the host then places only addressed records.
 */
void data_map_json(const char *path, const char *name, const char *dev, FILE *out);

#endif
