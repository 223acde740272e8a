/* SPDX-License-Identifier: GPL-2.0 */
/* Choose the accelerator: KVM only when a guest really boots under it. */
#ifndef HARNESS_ACCEL_H
#define HARNESS_ACCEL_H

#include <stddef.h>

#include "vm.h"

/*
 * requested is "auto", "kvm" or "tcg". For "auto" with a usable /dev/kvm,
 * boot base (kernel, initrd) once under KVM with a short timeout; the verdict
 * is cached in cache_dir per QEMU version and host kernel. Writes "kvm" or
 * "tcg" to out and a one-line reason to why.
 */
int accel_resolve(const char *requested, const struct qemu_config *base,
		  const char *cache_dir, char *out, size_t size, char *why, size_t wsize);

#endif
