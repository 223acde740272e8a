/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest's boot, done once: booted up to its hello, saved (vm_options
 * save_state), and every later guest of the same configuration restored
 * from there. Under TCG a boot is seconds, most of a short crash test.
 */
#ifndef HARNESS_SAVED_BOOT_H
#define HARNESS_SAVED_BOOT_H

#include <stddef.h>

#include "vm.h"

/* How many saved boots the cache keeps; the least recently used go first. */
#define SAVED_BOOTS_MAX 40

/*
 * The file in dir that a guest of configuration c is saved in: keyed by
 * QEMU's version, the kernel's and initrd's files, nvdimm_source (the file
 * whose bytes the NVDIMM starts as) and the rest of c that the guest's
 * state depends on (not the plugin, not the sockets). 0, or -1.
 */
int saved_boot_path(const struct qemu_config *c, const char *nvdimm_source, const char *dir, char *path,
		    size_t len);

/*
 * vm_run(o, r), from the saved boot of o's configuration in dir (made
 * first, if there is none, by a guest booting into o->run_dir/boot). The
 * NVDIMM (o->qemu.nvdimm) must hold nvdimm_source's bytes. A saved boot
 * QEMU will not restore is removed and the guest boots as usual, said on
 * stderr in one line; so is one whose saving guest wrote to its NVDIMM.
 * PMEM_SAVED_BOOTS=0 boots every guest. Returns what vm_run returns.
 */
int vm_run_saved(struct vm_options *o, const char *nvdimm_source, const char *dir, struct vm_result *r);

#endif
