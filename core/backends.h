/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backends.h - the one table of back ends: boot loaders, initramfs tools
 * and VM targets.
 *
 * Each X() line gives, for one back end: the enum suffix (VW_BL_GRUB), the
 * ops table's symbol suffix (vw_boot_grub, in core/boot_grub.c), the stable
 * name (answers files, JSON, state files; never translated) and the label
 * shown to people.  The lines are in detection order, the most specific
 * first: facts (core/facts.c) asks each ops table's detect() in this order
 * and the first that answers wins, so `check` and the plan cannot disagree.
 *
 * Adding a boot loader: one X() line here, core/boot_NAME.c with its ops
 * table, the file in mk/hostplan.am and po/POTFILES.in.  The enum, the
 * names, the answers words, the labels, detection and the snapshot's
 * evidence files follow from this table.
 */
#ifndef VW_BACKENDS_H
#define VW_BACKENDS_H

/* X(ENUM, sym, "name", "label") */
#define VW_BOOTLOADERS(X)							\
	X(PROXMOX, proxmox, "proxmox-boot-tool", "proxmox-boot-tool")		\
	X(KERNELSTUB, kernelstub, "kernelstub", "kernelstub")			\
	X(GRUBBY, grubby, "grubby", "grubby")					\
	X(KERNEL_INSTALL, kernel_install, "kernel-install", "kernel-install")	\
	X(SYSTEMD_BOOT, systemd_boot, "systemd-boot", "systemd-boot")		\
	X(GRUB, grub, "grub", "GRUB")

#define VW_INITRAMFS_TOOLS(X)							\
	X(BOOSTER, booster, "booster", "booster")				\
	X(MKINITCPIO, mkinitcpio, "mkinitcpio", "mkinitcpio")			\
	X(INITRAMFS_TOOLS, initramfs_tools, "initramfs-tools", "initramfs-tools") \
	X(DRACUT, dracut, "dracut", "dracut")

/* X(ENUM, sym, "name", value): VM targets.  The ops table is
 * vw_vm_SYM_ops in core/vm_SYM.c (core/vmplan.h: its capabilities, label
 * and the product's name); "name" is the word of vm.target in answers
 * files.  The lines are in detection order (Proxmox before libvirt: a
 * Proxmox host may have libvirt's client tools).  value is the enum's, fixed
 * and without holes (0 .. count - 1); 0 is the answers' default target.
 *
 * Adding a VM target: one X() line here, core/vm_NAME.c with its ops
 * table and templates, the files in mk/vmplan.am and po/POTFILES.in. */
#define VW_VM_TARGETS(X)							\
	X(PROXMOX, proxmox, "proxmox", 1)					\
	X(LIBVIRT, libvirt, "libvirt", 0)

#define VW_BL_ENUM_(e, sym, name, label) VW_BL_##e,
#define VW_IRFS_ENUM_(e, sym, name, label) VW_IRFS_##e,

/* UNKNOWN (0) is "auto" in answers files and "unknown" in reports. */
enum vw_bootloader { VW_BL_UNKNOWN = 0, VW_BOOTLOADERS(VW_BL_ENUM_) VW_BL_COUNT };
enum vw_initramfs { VW_IRFS_UNKNOWN = 0, VW_INITRAMFS_TOOLS(VW_IRFS_ENUM_) VW_IRFS_COUNT };

#define VW_VM_ENUM_(e, sym, name, value) VW_VM_##e = (value),
#define VW_VM_ONE_(e, sym, name, value) + 1
enum vw_vm_target { VW_VM_TARGETS(VW_VM_ENUM_) };
#define VW_VM_TARGET_COUNT (0 VW_VM_TARGETS(VW_VM_ONE_))

#endif
