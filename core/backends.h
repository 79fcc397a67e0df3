/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backends.h - the one table of host back ends: boot loaders and initramfs
 * tools.
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

#define VW_BL_ENUM_(e, sym, name, label) VW_BL_##e,
#define VW_IRFS_ENUM_(e, sym, name, label) VW_IRFS_##e,

/* UNKNOWN (0) is "auto" in answers files and "unknown" in reports. */
enum vw_bootloader { VW_BL_UNKNOWN = 0, VW_BOOTLOADERS(VW_BL_ENUM_) VW_BL_COUNT };
enum vw_initramfs { VW_IRFS_UNKNOWN = 0, VW_INITRAMFS_TOOLS(VW_IRFS_ENUM_) VW_IRFS_COUNT };

#endif
