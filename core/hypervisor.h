/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hypervisor.h - which hypervisor runs this guest, and what to change on
 * it when a passed-through GPU fails (guest-check, docs/guest-check.md).
 *
 * Evidence: the CPUID hypervisor leaf 0x40000000 (its 12-byte vendor
 * string: "KVMKVMKVM", "Microsoft Hv", "VMwareVMware", "XenVMMXenVMM"),
 * read with the cpuid instruction on the live machine and from
 * .vfiowiz/cpuid/0x40000000 under a sysroot (never executed); and DMI
 * (sys/class/dmi/id: sys_vendor, product_name, bios_vendor).  KVM with
 * Hyper-V enlightenments answers "Microsoft Hv" at 0x40000000: DMI decides
 * then.
 */
#ifndef VW_HYPERVISOR_H
#define VW_HYPERVISOR_H

#include <stdint.h>

#include "sysroot.h"
#include "vw.h"

enum vw_hv {
	VW_HV_NONE,		/* no hypervisor evidence */
	VW_HV_UNKNOWN,		/* a hypervisor, not one we know */
	VW_HV_KVM,		/* QEMU/KVM: libvirt, virt-manager, plain QEMU */
	VW_HV_PROXMOX,		/* QEMU/KVM on Proxmox VE */
	VW_HV_VMWARE,		/* VMware ESXi (or Workstation) */
	VW_HV_HYPERV,		/* Microsoft Hyper-V */
	VW_HV_XEN,
	VW_HV_FIRECRACKER,	/* KVM without DMI: Firecracker-like microVMs */
};

struct vw_hv_info {
	enum vw_hv hv;
	char cpuid[13];		/* leaf 0x40000000 vendor, "" unknown */
	char *sys_vendor, *product_name, *bios_vendor;	/* "" when absent */
	char *evidence;		/* what decided, for people */
};

/* Detect (fills *h; release with vw_hv_done()). */
void vw_hv_detect(struct vw_hv_info *h, const struct vw_sysroot *sr);
void vw_hv_done(struct vw_hv_info *h);
const char *vw_hv_name(enum vw_hv hv);	/* "kvm", "proxmox", ...: stable */
const char *vw_hv_title(enum vw_hv hv);	/* "KVM/QEMU (libvirt)", for people */

/* The fix on the hypervisor for a GPU whose BARs the guest cannot map: the
 * exact lines for hv, with a 64-bit MMIO window for BARs summing to sum64
 * bytes (0: unknown).  Translated; caller frees. */
char *vw_hv_bar_fix(enum vw_hv hv, uint64_t sum64);

#endif
