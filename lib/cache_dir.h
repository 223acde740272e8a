/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMEM_CACHE_DIR_H
#define PMEM_CACHE_DIR_H

/* Where kernels, images and QEMU's probe results are cached, outside any
 * clone: ${PMEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-aware} */
const char *cache_dir(void);

#endif
