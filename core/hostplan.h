/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostplan.h - the host part of the plan: kernel parameters, vfio-pci
 * binding, early module loading, initramfs rebuild; from facts + choices.
 *
 * vw_hostplan_build() adds changes to a caller's struct vw_plan (the VM and
 * access back ends add theirs to the same plan) and fills a struct
 * vw_hostplan with what the plan alone cannot say: notes for the user
 * (translated), the image checks to run after the initramfs rebuild, and
 * the back ends that were used.  It refuses (error, nothing planned) what
 * would lock the user out or cannot work: the boot display without
 * allow_host_display, ids that would also take a device the host keeps, a
 * blacklist that hits the host's display, an ACS override on a kernel
 * without the patch.
 *
 * Back ends: one const ops table per bootloader (core/boot_*.c) and per
 * initramfs tool (core/irfs_*.c), designated initializers at the bottom of
 * each file.  detect() tells whether the host uses that tool (from the
 * files it leaves); plan() adds changes through the struct vw_host context
 * below.  They never write and never run anything.
 */
#ifndef VW_HOSTPLAN_H
#define VW_HOSTPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "answers.h"
#include "plan.h"
#include "cmdline.h"
#include "facts.h"
#include "sysroot.h"
#include "vw.h"

/* Our own files. */
#define VW_MODPROBE_CONF "etc/modprobe.d/vfiowiz.conf"
#define VW_BIND_SCRIPT "usr/local/sbin/vfiowiz-vfio-bind"
#define VW_GRUB_DROPIN "etc/default/grub.d/99-vfiowiz.cfg"
#define VW_DRACUT_DROPIN "etc/dracut.conf.d/90-vfiowiz.conf"
#define VW_MKINITCPIO_DROPIN "etc/mkinitcpio.conf.d/vfiowiz.conf"
#define VW_IRFS_HOOK "etc/initramfs-tools/hooks/vfiowiz"
#define VW_TEST_ENTRY "vfiowiz-test.conf"
#define VW_SRIOV_SCRIPT "usr/local/sbin/vfiowiz-sriov"
#define VW_SRIOV_UNIT "etc/systemd/system/vfiowiz-sriov.service"
#define VW_MIG_SCRIPT "usr/local/sbin/vfiowiz-mig"
#define VW_MIG_UNIT "etc/systemd/system/vfiowiz-mig.service"

/* A command whose output must contain every expect string: run after the
 * post-command `after` succeeded (the image listing after a rebuild). */
struct vw_check {
	char *after;		/* post-command it follows */
	char *cmd;		/* the listing command */
	char **expect;		/* NULL-terminated substrings */
	const char *why;	/* N_() */
};

struct vw_hostplan {
	char **notes;		/* translated, one paragraph each */
	size_t nnotes;
	struct vw_check *checks;
	size_t nchecks;
	const struct vw_boot_ops *boot;	/* NULL: kernel parameters not planned */
	const struct vw_irfs_ops *irfs;	/* NULL: early loading not planned */
	bool by_address;	/* vfio-pci binding by address */
	bool dynamic;		/* gpu_mode = dynamic: libvirt hooks bind while
				   the VM runs (hooks.h), nothing at boot */
	bool turns_iommu_on;	/* the host has no IOMMU groups, its firmware has an
				   IOMMU, and the planned kernel parameters turn it
				   on (an 'off' removed, intel_iommu=on added): the
				   groups are known only after the reboot */
	int *devs;		/* chosen functions (facts indexes), sorted,
				   bound to vfio-pci at early boot */
	size_t ndevs;
	int *vfs;		/* chosen SR-IOV virtual functions: they exist
				   only once their PF's driver made them, so
				   a unit of ours binds them then (sriov.c) */
	size_t nvfs;
};

struct vw_host;
struct vw_aug;

struct vw_boot_ops {
	enum vw_bootloader id;
	const char *name;	/* as in the answers file */
	/* The host boots through this tool: the file (sysroot-relative) that
	 * shows it, or NULL.  Facts call it (core/backends.h gives the order). */
	const char *(*detect)(const struct vw_facts *f, const struct vw_sysroot *sr);
	/* Add the kernel parameter edits h->kedits to the plan. */
	int (*plan)(struct vw_host *h, struct vw_err *err);
	/* One-shot test boot of the new parameters (test_boot = true): plan a
	 * test entry and the command that boots it once instead of editing the
	 * default entries.  NULL: not supported by this back end. */
	int (*plan_test)(struct vw_host *h, struct vw_err *err);
};

struct vw_irfs_ops {
	enum vw_initramfs id;
	const char *name;
	/* The host builds its initramfs with this tool: the file that shows
	 * it, or NULL (as vw_boot_ops.detect). */
	const char *(*detect)(const struct vw_facts *f, const struct vw_sysroot *sr);
	/* Early loading of h->modules (and the bind script when by address). */
	int (*plan)(struct vw_host *h, struct vw_err *err);
	const char *rebuild;	/* the rebuild post-command */
	/* The listing command for the running kernel's image; caller frees;
	 * NULL when the image cannot be named. */
	char *(*list_cmd)(const struct vw_host *h);
	bool lists_modprobe;	/* the image holds a copy of modprobe.d */
};

#define VW_BOOT_EXTERN_(e, sym, name, label) extern const struct vw_boot_ops vw_boot_##sym;
#define VW_IRFS_EXTERN_(e, sym, name, label) extern const struct vw_irfs_ops vw_irfs_##sym;
VW_BOOTLOADERS(VW_BOOT_EXTERN_)
VW_INITRAMFS_TOOLS(VW_IRFS_EXTERN_)

/* All back ends, in the detection order of core/backends.h; NULL-ended. */
extern const struct vw_boot_ops *const vw_boot_backends[];
extern const struct vw_irfs_ops *const vw_irfs_backends[];

const struct vw_boot_ops *vw_boot_find(enum vw_bootloader id);
const struct vw_irfs_ops *vw_irfs_find(enum vw_initramfs id);
/* The back end for a host: the one the facts detected (the same chain);
 * NULL when none was. */
const struct vw_boot_ops *vw_boot_detect(const struct vw_facts *f, const struct vw_sysroot *sr);
const struct vw_irfs_ops *vw_irfs_detect(const struct vw_facts *f, const struct vw_sysroot *sr);

/* Build the host part of the plan into plan (vw_plan_init'ed by the
 * caller) and fill hp (free with vw_hostplan_done).  devs (n of them) are
 * the functions to hand to vfio-pci: the assignment unit's members
 * (core/unit.h), which the VM gets; NULL: the choices' devices and every
 * function of their slots.  Returns 0, or a negative code with err set (a
 * refusal, a file that cannot be parsed); plan may then hold part of the
 * changes and must not be applied. */
int vw_hostplan_build(struct vw_plan *plan, struct vw_hostplan *hp, const struct vw_facts *f,
		      const struct vw_sysroot *sr, const struct vw_choices *c, const int *devs,
		      size_t ndevs, struct vw_err *err);
void vw_hostplan_done(struct vw_hostplan *hp);

/* ---- for back ends --------------------------------------------------------- */

/* What the back ends share while a plan is built. */
struct vw_host {
	const struct vw_facts *f;
	const struct vw_sysroot *sr;
	const struct vw_choices *c;
	struct vw_plan *plan;
	struct vw_hostplan *hp;
	struct vw_aug *aug;
	struct vw_kedits kedits;	/* kernel parameter edits */
	char **modules;		/* NULL-terminated modules to load early */
	bool vfio_builtin;	/* vfio-pci built into the kernel */
	bool bind_script;	/* our bind script is planned (VW_BIND_SCRIPT) */
	char *ids_conf;		/* modprobe.d file outside ours holding the
				   ids (merged into it), or NULL */
	bool removed_off;	/* a file that turned the IOMMU off is edited */
	const char *rebuild;	/* initramfs rebuild command, NULL when none */
};

/* Add a note (printf-style, already translated). */
void vw_host_note(struct vw_host *h, const char *fmt, ...) VW_PRINTF(2, 3);

/* Plan whole-file contents for path with why (N_()) and post-commands
 * (NULL-terminated, may be NULL).  Returns vw_plan_add()'s value. */
int vw_host_put(struct vw_host *h, const char *path, const char *data, mode_t mode,
		const char *why, const char *const *post, struct vw_err *err);

/* The bytes path will hold (planned, else on disk); *data NULL when the
 * file does not exist.  Returns 0 or a negative code with err. */
int vw_host_read(struct vw_host *h, const char *path, char **data, struct vw_err *err);

/* Register a check after the rebuild (expect NULL-terminated). */
void vw_host_check(struct vw_host *h, const char *after, const char *cmd,
		   const char *const *expect, const char *why);

/* The SR-IOV part of the plan (core/sriov_plan.c): a unit that creates the
 * virtual functions h->hp->vfs need at boot and hands them to vfio-pci,
 * and the driver's parameter for the VF count.  Refuses a PF whose VFs
 * are in use by the host.  Returns 0 or a negative code with err. */
int vw_sriov_plan(struct vw_host *h, struct vw_err *err);
/* Only the refusal of vw_sriov_plan(), for plans that choose no VF. */
int vw_sriov_check_pfs(const struct vw_host *h, struct vw_err *err);

/* The MIG part of the plan (core/mig_plan.c): for the choices' mig
 * elements, a unit that switches MIG mode on and makes the missing GPU
 * instances at boot.  Checked against nvidia-smi's facts (core/mig.h): a
 * GPU without MIG, a profile it lacks, more instances than it has room
 * for, or a GPU that goes to a VM whole are refused.  Nothing planned
 * without mig elements.  Returns 0 or a negative code with err. */
int vw_mig_plan(struct vw_host *h, struct vw_err *err);

/* Common pieces of the systemd-boot family (boot_systemd_boot.c): the
 * ESP's entries directory ("boot/efi/loader/entries"...) or NULL; edit every
 * Linux entry's options; plan a test entry copied from the default one. */
const char *vw_boot_entries_dir(const struct vw_sysroot *sr);
/* What shows that systemd-boot boots the host (its EFI variable, or boot
 * entries and no GRUB), or NULL; kernel-install's detect() builds on it. */
const char *vw_sdboot_evidence(const struct vw_facts *f, const struct vw_sysroot *sr);
int vw_boot_edit_entries(struct vw_host *h, const char *dir, const char *why, struct vw_err *err);
int vw_boot_plan_test_entry(struct vw_host *h, const char *dir, const char *oneshot_cmd,
			    struct vw_err *err);
/* Remove a leftover test entry (test_boot = false). */
int vw_boot_drop_test_entry(struct vw_host *h, const char *dir, struct vw_err *err);

/* Edit a one-line cmdline file (/etc/kernel/cmdline; boot_kernel_install.c):
 * created from /usr/lib/kernel/cmdline or /proc/cmdline when absent.  post
 * may be NULL. */
int vw_boot_edit_cmdline_file(struct vw_host *h, const char *path, const char *why,
			      const char *const *post, struct vw_err *err);

/* GRUB (boot_grub.c), shared with Proxmox hosts that boot through GRUB and
 * with grubby.  Without grub.d, parameters go into GRUB_CMDLINE_LINUX when
 * all_entries (grubby: what new kernels get), else into
 * GRUB_CMDLINE_LINUX_DEFAULT (unless the other variable already holds the
 * parameter). */
int vw_boot_grub_plan_with(struct vw_host *h, const char *const *post, bool all_entries,
			   struct vw_err *err);

#endif
