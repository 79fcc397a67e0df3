/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bars.h - the memory windows (BARs) of PCI functions, for large-BAR GPUs
 * (A100/H100/H200: 64 to 256 GiB) and the VM's MMIO window sized from them.
 *
 * Read from sysfs `resource` (start end flags, one line per resource),
 * `resourceN_resize` (Resizable BAR: bitmap of supported sizes, bit n =
 * 2^n MiB) and the kernel's messages about BARs it could not assign
 * (recorded `dmesg` under a sysroot, the live `dmesg` otherwise).
 */
#ifndef VW_BARS_H
#define VW_BARS_H

#include "facts.h"

/* IORESOURCE_* bits of the third column of `resource`. */
#define VW_RES_IO	0x00000100UL
#define VW_RES_MEM	0x00000200UL
#define VW_RES_PREFETCH	0x00002000UL
#define VW_RES_MEM_64	0x00100000UL
#define VW_RES_UNSET	0x20000000UL

#define VW_GIB ((uint64_t)1 << 30)
/* OVMF's default 64-bit MMIO aperture: what fits without X-PciMmio64Mb. */
#define VW_OVMF_DEFAULT_MMIO64 (32 * VW_GIB)
/* A BAR this large needs q35 and OVMF (SeaBIOS and i440fx cannot map it). */
#define VW_BAR_LARGE (32 * VW_GIB)

/* Fill d->bars from the function's resource and resourceN_resize files
 * (absent or malformed: no BARs). */
void vw_bars_read(const struct vw_sysroot *sr, struct vw_pci_dev *d);
/* Mark the BARs the kernel said it could not assign ("can't assign; no
 * space", "failed to assign", "no space for"). */
void vw_bars_kernel_log(struct vw_facts *f, const struct vw_sysroot *sr);

bool vw_bar_is64(const struct vw_bar *b);
/* A memory BAR without an address: UNSET flag, start 0, or a kernel
 * message about it. */
bool vw_bar_unassigned(const struct vw_bar *b);
/* Largest size the Resizable BAR capability allows, 0 without one. */
uint64_t vw_bar_resize_max(const struct vw_bar *b);

/* Over the functions devs[0..n) of f: the sum of the 64-bit memory BARs,
 * and the largest BAR. */
uint64_t vw_bars_sum64(const struct vw_facts *f, const int *devs, size_t n);
uint64_t vw_bars_max(const struct vw_facts *f, const int *devs, size_t n);

/* The guest's 64-bit MMIO window for BARs summing to sum64, in MiB: the
 * next power of two of sum64 plus a quarter (room for the other devices
 * and alignment).  0 when OVMF's default window is enough. */
uint64_t vw_bars_mmio_mb(uint64_t sum64);

/* "256 GiB", "32 MiB", "4 KiB" into buf (exact binary units). */
const char *vw_size_text(char *buf, size_t n, uint64_t bytes);

#endif
