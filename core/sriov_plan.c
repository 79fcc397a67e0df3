/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sriov_plan.c - the host plan for SR-IOV virtual functions.
 *
 * A VF exists only after its PF's driver has made it (i915 makes the UHD
 * 770's seven VFs about 4.6 s after boot), so nothing in the initramfs can
 * bind it: a oneshot unit of ours waits for the PF's driver, sets
 * sriov_numvfs when the driver did not (i915.max_vfs, xe.max_vfs), and
 * hands the chosen VFs to vfio-pci by driver_override, before libvirt or
 * Proxmox start their guests.  The PF stays with its host driver. */
#include "hostplan.h"
#include "sha256.h"
#include "vmplan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char header[] = "# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.\n";

/* Drivers that take the VF count as a module parameter. */
static const struct {
	const char *driver, *param;
} count_params[] = {
	{ "i915", "i915.max_vfs" },
	{ "xe", "xe.max_vfs" },
};

static const char *count_param(const struct vw_pci_dev *pf)
{
	for (size_t i = 0; i < VW_ARRAY_SIZE(count_params); i++)
		if (!strcmp(pf->driver, count_params[i].driver))
			return count_params[i].param;
	return NULL;
}

/* A PF whose VFs are in use cannot go: unbinding its driver takes the VFs
 * away from whatever holds them, a host driver or vfio-pci (a VM's); and
 * the kernel's vfio-pci refuses a PF with VFs enabled anyway ("Cannot bind
 * to PF with SR-IOV enabled"). */
static int check_pfs(const struct vw_host *h, struct vw_err *err)
{
	const struct vw_facts *f = h->f;

	for (size_t i = 0; i < h->hp->ndevs; i++) {
		const struct vw_pci_dev *pf = &f->devs[h->hp->devs[i]];
		size_t used = 0;

		for (size_t k = 0; k < pf->nvfs; k++)
			used += *f->devs[pf->vfs[k]].driver != 0;
		if (used)
			return vw_err_set(err, -EBUSY,
					  ngettext("%s has %zu virtual function in use on this host: giving the PF to a VM takes it away. Choose virtual functions instead, or set its sriov_numvfs to 0 first",
						   "%s has %zu virtual functions in use on this host: giving the PF to a VM takes them away. Choose virtual functions instead, or set its sriov_numvfs to 0 first",
						   used),
					  pf->addr, used);
	}
	return 0;
}

/* chosen: some of this PF's VFs go to vfio-pci.  A VF is probed the moment
 * sriov_numvfs makes it (with sriov_drivers_autoprobe on, the default): the
 * PF's own driver would take the chosen ones before vfio-pci could (on the
 * real-kernel test nvme starts each new VF's controller), so they are made
 * with autoprobe off, and the VFs nobody chose are probed after the chosen
 * ones got their driver_override (the "probe" list, see vw_sriov_plan). */
static void script_pf(struct vw_buf *b, const struct vw_pci_dev *pf, int want, bool chosen)
{
	vw_buf_printf(b, "pf=/sys/bus/pci/devices/%s\n", pf->addr);
	vw_buf_printf(b, "want=%d\n", want);
	vw_buf_adds(b,
		    "# The PF's driver makes VFs possible: wait for it (at most a minute).\n"
		    "i=0\n"
		    "while ! [ -e \"$pf/driver\" ] || ! [ -e \"$pf/sriov_numvfs\" ]; do\n"
		    "\ti=$((i + 1))\n"
		    "\tif [ \"$i\" -gt 60 ]; then\n"
		    "\t\techo \"vfiowiz-sriov: $pf has no driver: no virtual functions\" >&2\n"
		    "\t\texit 1\n"
		    "\tfi\n"
		    "\tsleep 1\n"
		    "done\n"
		    "have=$(cat \"$pf/sriov_numvfs\")\n"
		    "if [ \"$have\" -lt \"$want\" ]; then\n"
		    "\t# The count changes only through 0.\n"
		    "\t[ \"$have\" -eq 0 ] || echo 0 > \"$pf/sriov_numvfs\"\n");
	if (chosen)
		vw_buf_adds(b,
			    "\t# Made with no driver, so that none but vfio-pci takes the chosen\n"
			    "\t# ones; the others are probed after them, if autoprobe was on.\n"
			    "\tauto=$(cat \"$pf/sriov_drivers_autoprobe\")\n"
			    "\techo 0 > \"$pf/sriov_drivers_autoprobe\"\n"
			    "\techo \"$want\" > \"$pf/sriov_numvfs\"\n"
			    "\techo \"$auto\" > \"$pf/sriov_drivers_autoprobe\"\n"
			    "\t[ \"$auto\" = 0 ] || probe=\"$probe $pf\"\n");
	else
		vw_buf_adds(b, "\techo \"$want\" > \"$pf/sriov_numvfs\"\n");
	vw_buf_adds(b, "fi\n");
}

/* The VF count each PF needs: the choices' sriov_numvfs, the highest
 * chosen VF, and never fewer than are enabled now (a VM may use them). */
struct pfwant {
	int pf, want;
};

static void want_add(struct pfwant *w, size_t *n, int pf, int want)
{
	size_t k;

	for (k = 0; k < *n && w[k].pf != pf; k++)
		;
	if (k == *n)
		w[(*n)++] = (struct pfwant){ pf, 0 };
	if (want > w[k].want)
		w[k].want = want;
}

int vw_sriov_plan(struct vw_host *h, struct vw_err *err)
{
	static const char *const post[] = { "systemctl daemon-reload",
					    "systemctl enable vfiowiz-sriov.service", NULL };
	const struct vw_facts *f = h->f;
	const struct vw_choices *c = h->c;
	struct vw_buf s = VW_BUF_INIT, u = VW_BUF_INIT;
	struct pfwant *w;
	size_t nw = 0;
	int r;

	r = check_pfs(h, err);
	if (r == 0)
		r = c->nvgpus ? vw_answers_check(c, f, err) : vw_answers_check_sriov(c, f, err);
	if (r < 0 || (!h->hp->nvfs && !c->nsriov && !c->nvgpus))
		return r;
	w = vw_xcalloc(h->hp->nvfs + c->nsriov + c->nvgpus + 1, sizeof(*w));
	for (size_t i = 0; i < c->nvgpus; i++) {
		const char *type;
		char addr[16];
		int d;

		if (vw_mdev_split(c->vgpus[i], addr, &type) && (d = vw_facts_find_dev(f, addr)) >= 0 &&
		    f->devs[d].vf)
			want_add(w, &nw, f->devs[d].physfn, f->devs[d].vf_index + 1);
	}
	for (size_t i = 0; i < c->nsriov; i++) {
		char pf[16];
		int n;

		if (vw_sriov_split(c->sriov[i], pf, &n))
			want_add(w, &nw, vw_facts_find_dev(f, pf), n);
	}
	for (size_t i = 0; i < h->hp->nvfs; i++) {
		const struct vw_pci_dev *vf = &f->devs[h->hp->vfs[i]];

		want_add(w, &nw, vf->physfn, vf->vf_index + 1);
	}

	vw_buf_adds(&s, "#!/bin/sh\n");
	vw_buf_adds(&s, header);
	vw_buf_adds(&s, "# Run at boot by vfiowiz-sriov.service: make the SR-IOV virtual functions\n"
			"# and hand the chosen ones to vfio-pci; their PF stays with its driver.\n"
			"set -u\n");
	if (h->hp->nvfs)
		vw_buf_adds(&s, "modprobe vfio-pci || exit 1\n"
				"probe=\n");
	for (size_t k = 0; k < nw; k++) {
		const struct vw_pci_dev *pf = &f->devs[w[k].pf];
		const char *param = count_param(pf);
		int want = w[k].want > pf->sriov_num ? w[k].want : pf->sriov_num;
		bool chosen = false;

		for (size_t i = 0; i < h->hp->nvfs; i++)
			chosen = chosen || f->devs[h->hp->vfs[i]].physfn == w[k].pf;
		script_pf(&s, pf, want, chosen);
		/* Who makes the VFs, said once per PF (NVIDIA's vGPU note is
		 * below). */
		if (pf->vendor == 0x1002)
			vw_host_note(h, _("AMD MxGPU: the virtual functions of %s come from AMD's GIM host driver (%s now), which must drive the GPU at every boot; amdgpu must not take the GPU on the host. The guest uses amdgpu."),
				     pf->addr, *pf->driver ? pf->driver : "-");
		else if (pf->vendor == 0x8086 && !strcmp(pf->driver, "xe"))
			vw_host_note(h, _("Intel SR-IOV: the virtual functions of %s come from the xe driver, as many as xe.max_vfs allows. The guest needs xe or i915 with SR-IOV virtual function support."),
				     pf->addr);
		else if (pf->vendor == 0x8086)
			vw_host_note(h, _("Intel SR-IOV: the virtual functions of %s come from i915 only with SR-IOV support (the i915 SR-IOV module where the kernel lacks it) and GuC submission (i915.enable_guc=3). The guest needs i915 or xe with SR-IOV virtual function support."),
				     pf->addr);
		/* The running command line may ask for as many already; a
		 * smaller count of ours after it would win and take VFs away. */
		if (param) {
			bool present = false;
			const char *have = vw_cmdline_get(f->kernel.params, f->kernel.nparams, param, &present);

			if (present && have && atoi(have) >= want)
				param = NULL;
		}
		if (param) {
			char num[16];

			snprintf(num, sizeof(num), "%d", want);
			vw_kedits_add(&h->kedits, VW_KOP_SET, param, num,
				      N_("the GPU's driver makes this many SR-IOV virtual functions at boot"));
		}
	}
	free(w);
	if (h->hp->nvfs) {
		vw_buf_adds(&s, "for dev in");
		for (size_t i = 0; i < h->hp->nvfs; i++)
			vw_buf_printf(&s, " %s", f->devs[h->hp->vfs[i]].addr);
		vw_buf_adds(&s, "; do\n"
				"\tsys=/sys/bus/pci/devices/$dev\n"
				"\tif ! [ -e \"$sys\" ]; then\n"
				"\t\techo \"vfiowiz-sriov: $dev did not appear\" >&2\n"
				"\t\tcontinue\n"
				"\tfi\n"
				"\techo vfio-pci > \"$sys/driver_override\"\n"
				"\tif [ -e \"$sys/driver\" ] && ! [ \"$sys/driver\" -ef /sys/bus/pci/drivers/vfio-pci ]; then\n"
				"\t\techo \"$dev\" > \"$sys/driver/unbind\"\n"
				"\tfi\n"
				"\t[ -e \"$sys/driver\" ] || echo \"$dev\" > /sys/bus/pci/drivers_probe\n"
				"done\n"
				"# The VFs made here that nobody chose: to their host driver, as\n"
				"# autoprobe would have done.\n"
				"for pf in $probe; do\n"
				"\tfor vf in \"$pf\"/virtfn*; do\n"
				"\t\t[ -e \"$vf/driver\" ] || basename \"$(readlink \"$vf\")\" > /sys/bus/pci/drivers_probe\n"
				"\tdone\n"
				"done\n");
	}

	for (size_t i = 0; i < c->nvgpus; i++) {
		const char *type;
		char addr[16];

		if (!vw_mdev_split(c->vgpus[i], addr, &type))
			continue;
		if (i == 0)
			vw_buf_adds(&s, "# NVIDIA vGPU types (vendor-specific VFIO): each VF stays with nvidia and\n"
					"# goes to its VM as it is, with the type written here.\n");
		vw_buf_printf(&s, "vf=/sys/bus/pci/devices/%s\n"
				  "i=0\n"
				  "while ! [ -e \"$vf/nvidia/current_vgpu_type\" ]; do\n"
				  "\ti=$((i + 1))\n"
				  "\tif [ \"$i\" -gt 60 ]; then\n"
				  "\t\techo \"vfiowiz-sriov: $vf has no vGPU type file\" >&2\n"
				  "\t\texit 1\n"
				  "\tfi\n"
				  "\tsleep 1\n"
				  "done\n"
				  "[ \"$(cat \"$vf/nvidia/current_vgpu_type\")\" = %s ] || echo %s > \"$vf/nvidia/current_vgpu_type\"\n",
			      addr, type, type);
	}

	vw_buf_adds(&u, header);
	vw_buf_printf(&u, "[Unit]\n"
			  "Description=vfiowiz: SR-IOV virtual functions for passthrough\n"
			  "After=systemd-modules-load.service\n"
			  "Before=libvirtd.service virtqemud.service pve-guests.service\n"
			  "\n"
			  "[Service]\n"
			  "Type=oneshot\n"
			  "RemainAfterExit=yes\n"
			  "ExecStart=/%s\n"
			  "\n"
			  "[Install]\n"
			  "WantedBy=multi-user.target\n", VW_SRIOV_SCRIPT);

	r = vw_host_put(h, VW_SRIOV_SCRIPT, s.data, 0755,
			h->hp->nvfs ? N_("Make the SR-IOV virtual functions at boot and hand the chosen ones to vfio-pci by address")
			: c->nvgpus ? N_("Make the SR-IOV virtual functions at boot and give the chosen ones their vGPU type")
				    : N_("Make the SR-IOV virtual functions at boot"),
			NULL, err);
	if (r >= 0)
		r = vw_host_put(h, VW_SRIOV_UNIT, u.data, 0644,
				N_("Run the virtual-function script at every boot, before the VMs start"), post, err);
	if (r >= 0 && c->nvgpus)
		vw_host_note(h, _("NVIDIA vGPU needs NVIDIA's vGPU host driver on this host (the one that lists these types) and, in the guest, the matching guest driver with a licence from an NVIDIA License System server: without one the vGPU runs with reduced performance."));
	if (r >= 0 && h->hp->nvfs)
		vw_host_note(h, _("The chosen virtual functions exist only once their PF's driver made them: a unit of vfiowiz (vfiowiz-sriov.service) binds them to vfio-pci at every boot; their PF stays with the host."));
	else if (r >= 0 && !c->nvgpus)
		vw_host_note(h, _("The virtual functions are made at every boot from now on; after the next boot, run vfiowiz again to give some of them to a VM."));
	if (r >= 0 && (h->hp->nvfs || c->nsriov))
		vw_host_note(h, _("'vfiowiz undo' removes the unit: the virtual functions made until then stay, with their drivers, until the next boot."));
	vw_buf_done(&s);
	vw_buf_done(&u);
	return r < 0 ? r : 0;
}

int vw_sriov_check_pfs(const struct vw_host *h, struct vw_err *err)
{
	return check_pfs(h, err);
}

/* ---- mediated devices (vGPUs) ------------------------------------------- */

void vw_mdev_uuid(const struct vw_choices *c, size_t k, char out[37])
{
	struct vw_sha256 s;
	char hex[65], idx[32];
	size_t o = 0;

	vw_sha256_init(&s);
	vw_sha256_add(&s, "vfiowiz-mdev", 13);
	vw_sha256_add(&s, c->vm.name, strlen(c->vm.name) + 1);
	snprintf(idx, sizeof(idx), "%ld/%zu", c->vm.vmid, k);
	vw_sha256_add(&s, idx, strlen(idx) + 1);
	vw_sha256_add(&s, c->mdevs[k], strlen(c->mdevs[k]));
	vw_sha256_hex(&s, hex);
	/* A name-based UUID: version 5 and the RFC 4122 variant bits. */
	hex[12] = '5';
	hex[16] = "89ab"[strtol((char[]){ hex[16], 0 }, NULL, 16) & 3];
	for (size_t i = 0; i < 32; i++) {
		if (i == 8 || i == 12 || i == 16 || i == 20)
			out[o++] = '-';
		out[o++] = hex[i];
	}
	out[o] = 0;
}

int vw_mdev_plan(struct vw_plan *p, const struct vw_sysroot *sr, const struct vw_facts *f,
		 const struct vw_choices *c, struct vw_vm_info *info, struct vw_err *err)
{
	static const char *const tools[] = { "usr/sbin/mdevctl", "usr/bin/mdevctl", "sbin/mdevctl" };
	bool have_tool = false;
	int r;

	for (size_t i = 0; i < VW_ARRAY_SIZE(tools); i++)
		have_tool = have_tool || vw_sysroot_exists(sr, tools[i]);
	for (size_t k = 0; k < c->nmdevs; k++) {
		char parent[16], uuid[37], *path, *json;
		const char *type;

		vw_mdev_split(c->mdevs[k], parent, &type);
		vw_mdev_uuid(c, k, uuid);
		path = vw_xasprintf("etc/mdevctl.d/%s/%s", parent, uuid);
		json = vw_xasprintf("{\n  \"mdev_type\": \"%s\",\n  \"start\": \"auto\",\n  \"attrs\": []\n}\n", type);
		r = vw_plan_add_file(p, sr, path, json, strlen(json), 0644,
				     N_("A mediated device (vGPU) for the VM, defined for mdevctl and made at every boot"),
				     err);
		free(path);
		free(json);
		if (r < 0)
			return r;
		vw_vm_info_note(info, _("The mediated device %s (%s on %s) is made at the next boot; to make it now: mdevctl start --uuid %s"),
				uuid, type, parent, uuid);
	}
	for (size_t k = 0; k < c->nmdevs; k++) {
		char parent[16];
		const char *type;
		int d;

		vw_mdev_split(c->mdevs[k], parent, &type);
		d = vw_facts_find_dev(f, parent);
		if (d >= 0 && f->devs[d].vendor == 0x10de) {
			vw_vm_info_note(info, _("NVIDIA vGPU needs NVIDIA's vGPU host driver on this host (the one that lists these types) and, in the guest, the matching guest driver with a licence from an NVIDIA License System server: without one the vGPU runs with reduced performance."));
			break;
		}
	}
	if (!have_tool)
		vw_vm_info_note(info, _("mdevctl is not installed: install it (Debian, Ubuntu: apt install mdevctl) so the mediated devices are made at boot."));
	return 0;
}
