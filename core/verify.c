/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify.c - the checks after the reboot, and the troubleshooting catalogue. */
#include "verify.h"
#include "hostplan.h"

#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "pipeline.h"
#include "unit.h"

static const struct vw_trouble catalogue[] = {
	{
		.code = "host-driver-bound",
		.title = N_("The host driver still owns the GPU"),
		.symptom = N_("lspci -nnk shows \"Kernel driver in use: nvidia\" (or amdgpu, nouveau, snd_hda_intel) "
			      "for a device of the VM instead of vfio-pci, and the VM does not start."),
		.cause = N_("The host driver loaded before vfio-pci could claim the device: the softdep lines or the "
			    "vfio-pci options did not reach the initramfs, or the binding names other ids."),
		.fix = N_("Check /etc/modprobe.d/vfiowiz.conf (options vfio-pci and the softdep lines), rebuild the "
			  "initramfs and reboot. Two identical cards cannot be told apart by ids: bind by address."),
	},
	{
		.code = "group-conflict",
		.title = N_("Another device in the IOMMU group is still in use"),
		.symptom = N_("The VM refuses to start: \"group N is not viable\" or \"Please ensure all devices within "
			      "the iommu_group are bound to their vfio bus driver\"."),
		.cause = N_("Every endpoint of an IOMMU group goes to the VM together, or has no driver at all. A "
			    "device of the group still has a host driver."),
		.fix = N_("Give the other devices of the group to the VM too, move the card to a slot with a group of "
			  "its own, or, knowing the risk, use the ACS override."),
	},
	{
		.code = "initramfs-no-vfio",
		.title = N_("The initramfs has no vfio modules"),
		.symptom = N_("vfio-pci loads late, after the GPU driver took the card; the initramfs listing shows "
			      "no vfio modules."),
		.cause = N_("The early-loading settings were written but the initramfs was not rebuilt, or the tool "
			    "ignored them (a dracut drop-in without .conf, an empty MODULES=() in mkinitcpio.conf)."),
		.fix = N_("Rebuild the initramfs, check that the vfio modules are listed in it, then reboot."),
	},
	{
		.code = "iommu-off",
		.title = N_("The IOMMU is still off"),
		.symptom = N_("/sys/kernel/iommu_groups is empty after the reboot."),
		.cause = N_("The kernel parameters did not reach the kernel (the bootloader configuration was not "
			    "regenerated, or another file overrides it), or the IOMMU is off in the firmware."),
		.fix = N_("Compare /proc/cmdline with the plan, run the bootloader's update command (update-grub, "
			  "proxmox-boot-tool refresh, ...) and reboot; turn on VT-d or AMD-Vi (IOMMU) in the "
			  "firmware setup."),
	},
	{
		.code = "black-screen",
		.title = N_("Black screen on the host"),
		.symptom = N_("After the bootloader the host's monitor stays black."),
		.cause = N_("vfio-pci took the display the host boots on, or its only GPU."),
		.fix = N_("Log in over SSH and run \"vfiowiz undo\", or edit the boot entry in the bootloader menu and "
			  "add modprobe.blacklist=vfio_pci to start once without the binding. Then pick another GPU, "
			  "or keep the host headless on purpose."),
	},
	{
		.code = "gpu-missing-guest",
		.title = N_("The GPU does not show up in the guest"),
		.symptom = N_("The guest's Device Manager or lspci shows no NVIDIA or AMD GPU."),
		.cause = N_("The VM does not list the device or all of its functions, it was not powered off and on "
			    "since the change, or it uses the i440fx machine type."),
		.fix = N_("Check that the VM holds every function of the device (hostdev entries, or hostpciN on "
			  "Proxmox), use q35 with OVMF, power the VM off and on, then run \"vfiowiz guest-check\" "
			  "inside the guest."),
		.guest = true,
	},
	{
		.code = "code-43",
		.title = N_("Windows shows Code 43 for the GPU"),
		.symptom = N_("Device Manager: \"Windows has stopped this device because it has reported problems. "
			      "(Code 43)\"."),
		.cause = N_("Older NVIDIA drivers stop when they see a hypervisor; an AMD card may also fail after a "
			    "reset, or the card's ROM is unusable."),
		.fix = N_("Turn on the Code 43 options in the VM step (KVM hidden, Hyper-V vendor id), update the "
			  "NVIDIA driver (R465 or newer allows passthrough), give the VM the audio function too, and "
			  "power the VM off completely before starting it again."),
		.guest = true,
	},
	{
		.code = "guest-black-screen",
		.title = N_("Black screen from the guest"),
		.symptom = N_("The VM runs but the monitor on the passed-through GPU stays black."),
		.cause = N_("The guest has no driver for the GPU yet, the emulated display is the primary one, or no "
			    "monitor (or dummy plug) is attached to the card."),
		.fix = N_("Connect to the guest with the access set up in the wizard (VNC or RDP), install the GPU "
			  "driver, attach a monitor or a dummy plug, then restart the guest."),
		.guest = true,
	},
};

const struct vw_trouble *vw_trouble_list(size_t *n)
{
	*n = VW_ARRAY_SIZE(catalogue);
	return catalogue;
}

const struct vw_trouble *vw_trouble_get(const char *code)
{
	for (size_t i = 0; code && i < VW_ARRAY_SIZE(catalogue); i++)
		if (!strcmp(catalogue[i].code, code))
			return &catalogue[i];
	return NULL;
}

char *vw_verify_initramfs_cmd(const struct vw_facts *f)
{
	const char *rel = f->kernel.release;

	switch (f->distro.initramfs) {
	case VW_IRFS_INITRAMFS_TOOLS:
		return *rel ? vw_xasprintf("lsinitramfs /boot/initrd.img-%s", rel) : NULL;
	case VW_IRFS_DRACUT:
		return *rel ? vw_xasprintf("lsinitrd /boot/initramfs-%s.img", rel) : NULL;
	case VW_IRFS_MKINITCPIO:
		return vw_xstrdup("lsinitcpio /boot/initramfs-linux.img");
	default:
		return NULL;
	}
}

const char *vw_verify_rebuild_cmd(const struct vw_facts *f)
{
	const struct vw_irfs_ops *t = vw_irfs_find(f->distro.initramfs);

	return t ? t->rebuild : NULL;
}

static struct vw_verify_check *add(struct vw_verify *v, const char *code)
{
	struct vw_verify_check *c;

	v->v = vw_xreallocarray(v->v, v->n + 1, sizeof(*v->v));
	c = &v->v[v->n++];
	memset(c, 0, sizeof(*c));
	c->code = code;
	c->state = VW_CHECK_UNKNOWN;
	return c;
}

static void set(struct vw_verify_check *c, enum vw_verify_state st, const char *diag, char *msg, struct vw_buf *detail)
{
	c->state = st;
	c->diag = st == VW_CHECK_FAIL ? diag : NULL;
	c->msg = msg;
	c->detail = detail && detail->data ? vw_buf_steal(detail) : vw_xstrdup("");
}

static bool vfio_driver(const char *drv)
{
	return !strcmp(drv, "vfio-pci") || !strcmp(drv, "pci-stub");
}

static void check_iommu(struct vw_verify *v, const struct vw_facts *f)
{
	struct vw_verify_check *c = add(v, "iommu");

	if (f->ngroups)
		set(c, VW_CHECK_OK, NULL,
		    vw_xasprintf(ngettext("The IOMMU is on: %zu group.", "The IOMMU is on: %zu groups.",
					  f->ngroups), f->ngroups), NULL);
	else
		set(c, VW_CHECK_FAIL, "iommu-off", vw_xstrdup(_("The IOMMU is off: there are no IOMMU groups.")),
		    NULL);
}

static void check_bound(struct vw_verify *v, const struct vw_facts *f, const struct vw_unit *u)
{
	struct vw_verify_check *c = add(v, "vfio-bound");
	struct vw_buf d = VW_BUF_INIT;
	size_t bad = 0, none = 0;

	if (!u->n) {
		set(c, VW_CHECK_UNKNOWN, NULL, vw_xstrdup(_("No device was chosen for the VM.")), NULL);
		return;
	}
	for (size_t k = 0; k < u->n; k++) {
		const struct vw_pci_dev *dev = &f->devs[u->m[k].dev];

		if (vfio_driver(dev->driver))
			continue;
		if (!*dev->driver) {
			none++;
			vw_buf_printf(&d, _("%s has no driver.\n"), dev->addr);
		} else {
			bad++;
			vw_buf_printf(&d, _("%s is bound to %s.\n"), dev->addr, dev->driver);
		}
	}
	if (!bad && !none)
		set(c, VW_CHECK_OK, NULL,
		    vw_xasprintf(ngettext("vfio-pci owns the %zu device of the VM.",
					  "vfio-pci owns all %zu devices of the VM.", u->n), u->n), NULL);
	else if (bad)
		set(c, VW_CHECK_FAIL, "host-driver-bound",
		    vw_xstrdup(_("A host driver still owns a device of the VM.")), &d);
	else
		set(c, VW_CHECK_FAIL, "initramfs-no-vfio",
		    vw_xstrdup(_("vfio-pci did not claim a device of the VM.")), &d);
	vw_buf_done(&d);
}

static void check_groups(struct vw_verify *v, const struct vw_facts *f, const struct vw_unit *u)
{
	struct vw_verify_check *c = add(v, "group-viable");
	struct vw_buf d = VW_BUF_INIT;
	size_t bad = 0;

	if (!u->ngroups) {
		set(c, VW_CHECK_UNKNOWN, NULL, vw_xstrdup(_("The devices of the VM are in no IOMMU group.")), NULL);
		return;
	}
	for (size_t g = 0; g < u->ngroups; g++) {
		const struct vw_group *grp = vw_facts_group(f, u->groups[g]);

		for (size_t k = 0; grp && k < grp->ndevs; k++) {
			const struct vw_pci_dev *dev = &f->devs[grp->devs[k]];

			if (vw_dev_is_bridge(dev) || !*dev->driver || vfio_driver(dev->driver))
				continue;
			bad++;
			vw_buf_printf(&d, _("Group %d: %s is used by %s.\n"), grp->id, dev->addr, dev->driver);
		}
	}
	if (!bad)
		set(c, VW_CHECK_OK, NULL,
		    vw_xasprintf(ngettext("The IOMMU group of the VM is viable.",
					  "The %zu IOMMU groups of the VM are viable.", u->ngroups), u->ngroups),
		    NULL);
	else
		set(c, VW_CHECK_FAIL, "group-conflict",
		    vw_xstrdup(_("An IOMMU group of the VM is not viable: a member has a host driver.")), &d);
	vw_buf_done(&d);
}

static void check_display(struct vw_verify *v, const struct vw_facts *f, const struct vw_unit *u,
			  const struct vw_choices *ch)
{
	struct vw_verify_check *c = add(v, "host-display");

	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *dev = &f->devs[i];

		if (!vw_dev_is_display(dev) || vw_unit_find(u, (int)i) || !*dev->driver || vfio_driver(dev->driver))
			continue;
		set(c, VW_CHECK_OK, NULL,
		    vw_xasprintf(_("The host kept its display: %s (%s)."), dev->addr, dev->driver), NULL);
		return;
	}
	if (ch->allow_host_display)
		set(c, VW_CHECK_OK, NULL,
		    vw_xstrdup(_("The host has no display, as you chose: reach it over SSH.")), NULL);
	else
		set(c, VW_CHECK_FAIL, "black-screen",
		    vw_xstrdup(_("The host has no working display left.")), NULL);
}

static void check_initramfs(struct vw_verify *v, const struct vw_sysroot *sr, const struct vw_facts *f)
{
	struct vw_verify_check *c = add(v, "initramfs-vfio");
	char *cmd = vw_verify_initramfs_cmd(f), **argv = NULL;
	const char *rebuild = vw_verify_rebuild_cmd(f);
	struct vw_exec_result res;
	struct vw_err err = { 0 };
	struct vw_buf d = VW_BUF_INIT;

	if (f->kernel.vfio_builtin) {
		set(c, VW_CHECK_OK, NULL, vw_xstrdup(_("vfio-pci is built into the kernel.")), NULL);
		free(cmd);
		return;
	}
	if (!cmd || vw_exec_split(cmd, &argv, &err) < 0) {
		set(c, VW_CHECK_UNKNOWN, NULL,
		    vw_xstrdup(_("The initramfs could not be checked: its tool is not known.")), NULL);
		free(cmd);
		return;
	}
	if (vw_exec_run(sr, (const char *const *)argv, &res, &err) < 0 || res.status != 0) {
		vw_buf_printf(&d, _("Run it yourself: %s\n"), cmd);
		set(c, VW_CHECK_UNKNOWN, NULL,
		    vw_xasprintf(_("The initramfs could not be listed (%s)."), err.msg[0] ? err.msg : cmd), &d);
	} else if (strstr(res.output, "vfio")) {
		set(c, VW_CHECK_OK, NULL, vw_xstrdup(_("The initramfs holds the vfio modules.")), NULL);
	} else {
		if (rebuild)
			vw_buf_printf(&d, _("Rebuild it: %s\n"), rebuild);
		vw_buf_printf(&d, _("Then check: %s | grep vfio\n"), cmd);
		set(c, VW_CHECK_FAIL, "initramfs-no-vfio",
		    vw_xstrdup(_("The initramfs of the running kernel has no vfio modules.")), &d);
	}
	vw_exec_result_done(&res);
	vw_strv_free(argv);
	vw_buf_done(&d);
	free(cmd);
}

void vw_verify_run(struct vw_verify *out, const struct vw_sysroot *sr, const struct vw_facts *f,
		   const struct vw_choices *c)
{
	struct vw_nvlink nl;
	struct vw_unit u;

	memset(out, 0, sizeof(*out));
	/* The unit the plan bound: NVLink peers included (the sets recorded
	 * in the state; nvidia-smi sees nothing once vfio-pci has the GPUs). */
	vw_pipeline_nvlink(&nl, sr, f, c, NULL);
	if (vw_unit_build_choices(&u, f, &nl, c, NULL) < 0)
		memset(&u, 0, sizeof(u));
	vw_nvlink_done(&nl);
	check_iommu(out, f);
	check_bound(out, f, &u);
	check_groups(out, f, &u);
	check_display(out, f, &u, c);
	check_initramfs(out, sr, f);
	vw_unit_done(&u);
}

void vw_verify_done(struct vw_verify *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free(v->v[i].msg);
		free(v->v[i].detail);
	}
	free(v->v);
	memset(v, 0, sizeof(*v));
}

bool vw_verify_ok(const struct vw_verify *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].state == VW_CHECK_FAIL)
			return false;
	return true;
}
