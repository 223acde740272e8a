/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checker guest's report on one image is one JSON document on one line
 * of its control port (workloads/checker.c writes it; the host's slot takes it,
 * crash-inject/judge/check_block.h, and crash-inject/judge/judge.c loads it), schema 1:
 *
 *   {"schema":1,"kind":"check","image":17,
 *    "mounted":true,
 *    "mount_error":"ext4 /dev/pmem0 on /mnt: Invalid argument",
 *    "files":[{"name":"crash/data","missing":false,"size":16384,
 *              "slots":[[0,0,"V",3],[1,1,"T",4],[2,3,"Z",0]],
 *              "error":"read slots 0-255: Input/output error"}],
 *    "user_check":0,
 *    "umount_error":"Device or resource busy",
 *    "flush_errors":["/dev/pmem0: Invalid argument"],
 *    "data_map":{"file":"crash/data","dev_phys":4297064448,
 *                "extents":[[0,2097152,262144]]},
 *    "fsck":0,
 *    "phase":{"mount":12.5,"verify":3.1,"umount":2.0,"fsck":40.2}}
 *
 *   image         the item the host handed out ("image <i> ..."): the
 *                 document is refused for any other
 *   mounted       mount -o dax succeeded; mount_error says why not
 *   files         one per crash file the record verifier read (none when
 *                 the image did not mount or a user's checker ran): missing
 *                 when it does not exist, else its size and its slots as
 *                 runs [first, last, state, seq] of equal slots (state V,
 *                 Z, T or X, see workloads/record.h; seq the header's
 *                 sequence for V and T, else 0, at most 2^63 - 1); error
 *                 when it could not be read to the end
 *   user_check    the exit status of the user's CHECK program (only then)
 *   umount_error, flush_errors   what went wrong, for the log (not judged)
 *   data_map      where the first crash file lay (workloads/data_map.h): the
 *                 guest physical address of the device's first byte, and
 *                 the file's extents [logical, physical, length] in bytes
 *                 (physical from the device's start), at most
 *                 CHECK_MAX_EXTENTS; absent when FIEMAP or sysfs failed
 *   fsck          the exit status of e2fsck -fn / xfs_repair -n
 *   phase         guest milliseconds per step (check_phases.h)
 *
 * Optional fields are absent rather than empty. A field the loader does
 * not know is ignored; a known one of the wrong type, or out of bounds,
 * refuses the document (but an absurd phase is only not believed).
 */
#ifndef PMEM_PROTO_CHECK_REPORT_H
#define PMEM_PROTO_CHECK_REPORT_H

#define CHECK_DOC_SCHEMA 1
#define CHECK_DOC_KIND "check"
/* Extents of a data_map, at most: a file of records is one or a few. */
#define CHECK_MAX_EXTENTS 64

#endif
