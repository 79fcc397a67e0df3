/* SPDX-License-Identifier: GPL-2.0-or-later */
/* findings.c - the decision logic of docs/formats.md section 1, as rules. */
#include "findings.h"
#include "bars.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vw_findings_add(struct vw_findings *fs, const char *code, enum vw_severity sev, char *msg,
		     char *remedy)
{
	struct vw_finding *x;

	fs->v = vw_xreallocarray(fs->v, fs->n + 1, sizeof(*fs->v));
	x = &fs->v[fs->n++];
	x->code = code;
	x->sev = sev;
	x->msg = msg;
	x->remedy = remedy ? remedy : vw_xstrdup("");
}

static void add(struct vw_findings *fs, const char *code, enum vw_severity sev,
		char *msg, char *remedy)
{
	vw_findings_add(fs, code, sev, msg, remedy);
}

bool vw_dev_is_igpu(const struct vw_pci_dev *d)
{
	return d->vendor == 0x8086 && vw_dev_is_display(d) && d->bus == 0;
}

bool vw_needs_intel_iommu_on(const struct vw_facts *f, bool target_is_igpu)
{
	const struct vw_kernel *k = &f->kernel;

	if (f->cpu.vendor != VW_CPU_INTEL || f->iommu.cmdline_on)
		return false;
	if (k->intel_default_on == VW_YES)
		return false;
	if (k->intel_default_intgpu_off == VW_YES && !target_is_igpu)
		return false;
	return true;
}

static void rule_container(const struct vw_facts *f, struct vw_findings *fs)
{
	if (!f->container.inside)
		return;
	add(fs, "container", VW_SEV_BLOCKER,
	    vw_xasprintf(_("Running inside a container (%s, seen in %s): devices cannot be handed to a VM from here."),
			 f->container.kind, f->container.evidence),
	    vw_xstrdup(_("Run vfiowiz on the host itself, outside any container.")));
}

static void rule_cpu(const struct vw_facts *f, struct vw_findings *fs)
{
	const struct vw_cpu *c = &f->cpu;

	if (c->vmx || c->svm) {
		add(fs, "cpu-virt", VW_SEV_OK,
		    vw_xasprintf(_("CPU virtualization is available (%s)."), c->vmx ? "VT-x" : "AMD-V"), NULL);
	} else if (c->virt_disabled_by_bios) {
		add(fs, "cpu-virt-disabled", VW_SEV_BLOCKER,
		    vw_xstrdup(_("The CPU supports VT-x but the firmware turned it off.")),
		    vw_xstrdup(_("Enable \"Intel Virtualization Technology\" (VT-x) in the firmware setup, then run the check again.")));
	} else if (c->hypervisor) {
		add(fs, "cpu-virt-missing-guest", VW_SEV_WARN,
		    vw_xstrdup(_("No CPU virtualization inside this virtual machine (nested virtualization is off).")),
		    vw_xstrdup(_("Set up passthrough on the physical host instead.")));
	} else if (*c->vendor_id) {
		add(fs, "cpu-virt-missing", VW_SEV_BLOCKER,
		    vw_xstrdup(_("The CPU shows no virtualization extension (vmx or svm): KVM cannot run here.")),
		    vw_xstrdup(_("Enable virtualization (VT-x or AMD-V/SVM) in the firmware setup, if the CPU has it.")));
	}
}

static void rule_vm(const struct vw_facts *f, struct vw_findings *fs)
{
	const struct vw_cpu *c = &f->cpu;
	size_t gpus = 0;

	for (size_t i = 0; i < f->ndevs; i++)
		gpus += f->devs[i].role == VW_ROLE_GPU && !vw_dev_is_emulated(&f->devs[i]);
	if (!c->hypervisor)
		return;
	if (f->fw.dmar || f->fw.ivrs || f->iommu.ngroups) {
		add(fs, "vm-viommu", VW_SEV_WARN,
		    vw_xasprintf(_("Running inside a virtual machine (%s) that has a virtual IOMMU: nested passthrough only."),
				 *c->hypervisor_name ? c->hypervisor_name : _("hypervisor unknown")),
		    vw_xstrdup(_("Prefer setting up passthrough on the physical host.")));
	} else {
		add(fs, "vm-no-iommu", VW_SEV_BLOCKER,
		    vw_xasprintf(_("Running inside a virtual machine (%s) without a virtual IOMMU: no passthrough can be set up from here."),
				 *c->hypervisor_name ? c->hypervisor_name : _("hypervisor unknown, no DMI data")),
		    vw_xstrdup(_("Run vfiowiz on the physical host, or give this VM a virtual IOMMU (QEMU: -device intel-iommu).")));
	}
	if (gpus)
		add(fs, "vm-gpus-passed", VW_SEV_INFO,
		    vw_xasprintf(ngettext("This VM already has %zu GPU passed through to it: use 'vfiowiz guest-check' to test it.",
					  "This VM already has %zu GPUs passed through to it: use 'vfiowiz guest-check' to test them.",
					  gpus), gpus),
		    NULL);
}

static void rule_iommu(const struct vw_facts *f, struct vw_findings *fs)
{
	const struct vw_iommu *io = &f->iommu;
	const struct vw_kernel *k = &f->kernel;
	bool table = f->fw.dmar || f->fw.ivrs;
	const char *tname = f->fw.dmar ? "DMAR" : "IVRS";

	if (k->cmdline_unreadable)
		add(fs, "cmdline-unreadable", VW_SEV_BLOCKER,
		    vw_xstrdup(_("The kernel command line could not be read (see the note on /proc/cmdline below): whether it turns the IOMMU on or off cannot be told.")),
		    vw_xstrdup(_("Look at /proc/cmdline on the host (for a snapshot: take it again), then run vfiowiz check again.")));
	if (io->ngroups) {
		add(fs, "iommu-active", VW_SEV_OK,
		    vw_xasprintf(ngettext("The IOMMU is active: the kernel made %zu group.",
					  "The IOMMU is active: the kernel made %zu groups.", io->ngroups),
				 io->ngroups), NULL);
	} else if (!table) {
		if (f->cpu.hypervisor)
			return;	/* said by rule_vm */
		add(fs, "iommu-firmware-off", VW_SEV_BLOCKER,
		    vw_xstrdup(_("The firmware publishes no IOMMU (no DMAR or IVRS ACPI table).")),
		    vw_xstrdup(_("Enable VT-d (Intel) or AMD-Vi/IOMMU (AMD) in the firmware setup, then run the check again.")));
	} else if (io->cmdline_off) {
		add(fs, "iommu-cmdline-off", VW_SEV_FIXABLE,
		    vw_xasprintf(_("The firmware has an IOMMU (%s table) but the kernel command line turns it off."), tname),
		    vw_xstrdup(_("The wizard removes the 'off' parameter from the kernel command line.")));
	} else if (f->cpu.vendor == VW_CPU_INTEL && vw_needs_intel_iommu_on(f, false)) {
		add(fs, "iommu-needs-param", VW_SEV_FIXABLE,
		    vw_xasprintf(_("The firmware has an IOMMU (DMAR table) but this kernel leaves it off by default (%s)."),
				 k->config_found ? k->config_source : _("kernel configuration not found")),
		    vw_xstrdup(_("The wizard adds intel_iommu=on to the kernel command line.")));
	} else if (f->cpu.vendor == VW_CPU_INTEL && k->intel_default_intgpu_off == VW_YES) {
		add(fs, "iommu-intgpu-off", VW_SEV_FIXABLE,
		    vw_xstrdup(_("This kernel turns the IOMMU on except for the Intel integrated GPU, yet no group exists.")),
		    vw_xstrdup(_("The wizard adds intel_iommu=on; it is needed anyway to pass the integrated GPU.")));
	} else {
		add(fs, "iommu-no-groups", VW_SEV_BLOCKER,
		    vw_xasprintf(_("The firmware has an IOMMU (%s table) but the kernel made no IOMMU groups."), tname),
		    vw_xstrdup(_("Look for DMAR or AMD-Vi errors in 'dmesg'; a firmware update may be needed.")));
	}
	if (io->ngroups && io->irq_remap == VW_NO)
		add(fs, "irq-remap-off", VW_SEV_WARN,
		    vw_xstrdup(_("Interrupt remapping is off: VFIO refuses devices unless unsafe interrupts are allowed.")),
		    vw_xstrdup(_("Enable interrupt remapping (x2APIC) in the firmware; 'allow_unsafe_interrupts=1' is insecure.")));
	if (io->passthrough)
		add(fs, "iommu-pt", VW_SEV_INFO, vw_xstrdup(_("IOMMU passthrough mode for host devices is on (iommu=pt).")), NULL);
}

static void rule_acs(const struct vw_facts *f, struct vw_findings *fs)
{
	bool present;

	vw_cmdline_get(f->kernel.params, f->kernel.nparams, "pcie_acs_override", &present);
	if (f->kernel.acs_override_active)
		add(fs, "acs-override-active", VW_SEV_WARN,
		    vw_xstrdup(_("The ACS override is active: IOMMU groups are split by pretence, and devices may reach each other's memory.")),
		    vw_xstrdup(_("Never use it on a host shared with people you do not trust.")));
	else if (present)
		add(fs, "acs-override-ignored", VW_SEV_WARN,
		    vw_xasprintf(_("pcie_acs_override is on the command line, but this kernel (%s) does not carry the patch."),
				 f->kernel.release),
		    vw_xstrdup(_("Remove the parameter, or use a kernel that has the patch (Proxmox, linux-zen).")));
}

static size_t strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

static void rule_gpus(const struct vw_facts *f, struct vw_findings *fs)
{
	size_t gpus = 0;

	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[i];

		if (d->role != VW_ROLE_GPU || d->vf)
			continue;	/* VFs are told with their PF */
		gpus++;
		add(fs, "gpu", VW_SEV_INFO,
		    *d->driver ?
		    vw_xasprintf(_("GPU %s: %s %s [%04x:%04x], bound to %s."), d->addr,
				 *d->vendor_name ? d->vendor_name : _("unknown vendor"),
				 *d->device_name ? d->device_name : _("unknown device"), d->vendor, d->device,
				 d->driver) :
		    vw_xasprintf(_("GPU %s: %s %s [%04x:%04x], no driver bound."), d->addr,
				 *d->vendor_name ? d->vendor_name : _("unknown vendor"),
				 *d->device_name ? d->device_name : _("unknown device"), d->vendor, d->device),
		    NULL);
		if (d->sriov_total > 0)
			add(fs, "gpu-sriov", VW_SEV_INFO,
			    vw_xasprintf(_("%s can be shared between VMs through SR-IOV: %d of %d virtual functions are enabled; each can go to a VM while the GPU stays with the host."),
					 d->addr, d->sriov_num, d->sriov_total), NULL);
		if (d->nmdev_types || d->vgpu_types)
			add(fs, "gpu-mdev", VW_SEV_INFO,
			    vw_xasprintf(_("%s can be shared between VMs as mediated devices or vGPUs (%zu types listed by its driver)."),
					 d->addr, d->nmdev_types + strv_len(d->vgpu_types)), NULL);
		if (d->boot_vga == 1)
			add(fs, "gpu-boot-display", VW_SEV_INFO,
			    vw_xasprintf(_("%s is the display the firmware booted on: taking it leaves the host without a screen."),
					 d->addr), NULL);
	}
	if (!gpus)
		add(fs, "no-gpu", VW_SEV_WARN, vw_xstrdup(_("No GPU found (display classes 0300, 0302, 0380).")), NULL);
}

/* "0000:04:00.0, 0000:06:00.1" of group g's endpoints outside d's slot;
 * *host gets the ones the host needs, with what for. */
static void group_others(const struct vw_facts *f, const struct vw_pci_dev *d, struct vw_buf *all,
			 struct vw_buf *host)
{
	const struct vw_group *g = vw_facts_group(f, d->group);

	for (size_t k = 0; g && k < g->ndevs; k++) {
		const struct vw_pci_dev *o = &f->devs[g->devs[k]];

		if (o == d || vw_dev_same_slot(o, d) || vw_dev_is_bridge(o))
			continue;
		vw_buf_printf(all, "%s%s", all->len ? ", " : "", o->addr);
		if (o->host_role)
			vw_buf_printf(host, "%s%s (%s)", host->len ? "; " : "", o->addr,
				      o->host_role_why ? o->host_role_why : "");
	}
}

/* GPUs that cannot go to a VM on their own: their IOMMU group holds other
 * endpoints, maybe ones the host needs.  When no GPU but the boot display
 * can go alone, "gpu-limits" says so (the verdict is then not "Ready"). */
static void rule_gpu_groups(const struct vw_facts *f, struct vw_findings *fs)
{
	bool alone = false, limited = false;

	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[i];
		const struct vw_group *g;
		struct vw_buf all = VW_BUF_INIT, host = VW_BUF_INIT;

		if (d->role != VW_ROLE_GPU || vw_dev_is_emulated(d) || d->group < 0 ||
		    !(g = vw_facts_group(f, d->group)))
			continue;
		if (g->verdict != VW_GROUP_SHARED) {
			alone |= d->boot_vga != 1;
			continue;
		}
		group_others(f, d, &all, &host);
		if (!all.len) {
			alone |= d->boot_vga != 1;
			continue;
		}
		limited = true;
		if (host.len)
			add(fs, "gpu-group-host", VW_SEV_WARN,
			    vw_xasprintf(_("GPU %s shares IOMMU group %d with devices the host needs: %s. It can only go to a VM together with them, and that is refused unless you opt in."),
					 d->addr, d->group, host.data),
			    vw_xstrdup(_("Use a GPU in another IOMMU group, move it to another slot, or use the ACS override (with its security warning).")));
		else
			add(fs, "gpu-group-shared", VW_SEV_WARN,
			    vw_xasprintf(_("GPU %s shares IOMMU group %d with %s: it can only go to the same VM together with them."),
					 d->addr, d->group, all.data),
			    vw_xstrdup(_("Give them to the VM together, move a card to a slot in another IOMMU group, or use the ACS override.")));
		vw_buf_done(&all);
		vw_buf_done(&host);
	}
	if (limited && !alone)
		add(fs, "gpu-limits", VW_SEV_WARN,
		    vw_xstrdup(_("No GPU can go to a VM on its own here: each one (but the boot display) shares its IOMMU group with other devices.")),
		    NULL);
}

/* What the host needs, for the record: these stay with the host. */
static void rule_host_roles(const struct vw_facts *f, struct vw_findings *fs)
{
	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[i];

		if (!d->host_role)
			continue;
		add(fs, "host-device", VW_SEV_INFO,
		    vw_xasprintf(_("%s (%s) is the host's: %s. It is not given to a VM unless you opt in."),
				 d->addr, *d->device_name ? d->device_name : vw_role_name(d->role),
				 d->host_role_why ? d->host_role_why : ""),
		    NULL);
	}
}

/* Large BARs (docs/formats.md, section 1): a 64-bit BAR the firmware left unassigned or
 * placed below 4 GiB means Above 4G decoding is off; Resizable BAR shows in
 * resourceN_resize. */
static void rule_bars(const struct vw_facts *f, struct vw_findings *fs)
{
	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[i];
		int bad = -1, rebar = -1;

		if (d->role != VW_ROLE_GPU || vw_dev_is_emulated(d))
			continue;
		for (int b = 0; b < VW_NBARS; b++) {
			const struct vw_bar *r = &d->bars[b];

			if (bad < 0 && vw_bar_is64(r) &&
			    (vw_bar_unassigned(r) || (r->size >= (256u << 20) && r->start + r->size <= ((uint64_t)4 << 30))))
				bad = b;
			if (rebar < 0 && r->resizable)
				rebar = b;
		}
		if (bad >= 0) {
			char sz[32];

			add(fs, "above-4g-off", VW_SEV_WARN,
			    vw_xasprintf(vw_bar_unassigned(&d->bars[bad])
					 ? _("Above 4G decoding looks off: %s BAR %d (%s, 64-bit) has no address.")
					 : _("Above 4G decoding looks off: %s BAR %d (%s, 64-bit) sits below 4 GiB."),
					 d->addr, bad, vw_size_text(sz, sizeof(sz), d->bars[bad].size)),
			    vw_xstrdup(_("Turn on \"Above 4G Decoding\" in the firmware setup (also called \"Above 4GB MMIO\", \"Memory Mapped I/O above 4GB\", \"MMIOH\" or \"PCI 64-Bit Resource Allocation\"); keep CSM off.")));
		}
		if (rebar >= 0) {
			const struct vw_bar *r = &d->bars[rebar];
			uint64_t max = vw_bar_resize_max(r);
			char cur[32], top[32];

			vw_size_text(cur, sizeof(cur), r->size);
			vw_size_text(top, sizeof(top), max);
			if (r->size >= max)
				add(fs, "rebar-on", VW_SEV_INFO,
				    vw_xasprintf(_("Resizable BAR is on: %s BAR %d is %s, the largest it supports."),
						 d->addr, rebar, cur), NULL);
			else
				add(fs, "rebar-off", VW_SEV_INFO,
				    vw_xasprintf(_("Resizable BAR looks off: %s BAR %d is %s, it supports up to %s."),
						 d->addr, rebar, cur, top),
				    vw_xstrdup(_("For the full BAR, turn on \"Re-Size BAR Support\" (also \"Resizable BAR\" or \"Smart Access Memory\") with Above 4G Decoding in the firmware setup; the VM then needs a larger MMIO window (vfiowiz sizes it).")));
		}
	}
}

static void rule_host_tools(const struct vw_facts *f, struct vw_findings *fs)
{
	if (f->container.inside || f->cpu.hypervisor)
		return;
	if (f->distro.bootloader == VW_BL_UNKNOWN)
		add(fs, "bootloader-unknown", VW_SEV_WARN,
		    vw_xstrdup(_("The bootloader could not be detected: kernel parameters must be added by hand.")),
		    vw_xstrdup(_("Choose the bootloader in the answers file (bootloader = grub, ...).")));
	if (f->distro.initramfs == VW_IRFS_UNKNOWN)
		add(fs, "initramfs-unknown", VW_SEV_WARN,
		    vw_xstrdup(_("The initramfs tool could not be detected: vfio may load too late.")),
		    vw_xstrdup(_("Choose the tool in the answers file (initramfs = initramfs-tools, ...).")));
}

static void rule_notes(const struct vw_facts *f, struct vw_findings *fs)
{
	for (size_t i = 0; i < f->ndevs; i++)
		if (*f->devs[i].note)
			add(fs, "device-unreadable", VW_SEV_WARN,
			    vw_xasprintf("%s: %s", f->devs[i].addr, f->devs[i].note), NULL);
	for (size_t i = 0; i < f->ngroups; i++)
		if (*f->groups[i].note)
			add(fs, "group-odd", VW_SEV_WARN,
			    vw_xasprintf(_("IOMMU group %d: %s"), f->groups[i].id, f->groups[i].note), NULL);
	for (size_t i = 0; i < f->nnotes; i++)
		add(fs, "probe-note", VW_SEV_WARN, vw_xstrdup(f->notes[i]), NULL);
}

void vw_findings_eval(const struct vw_facts *f, struct vw_findings *out)
{
	memset(out, 0, sizeof(*out));
	rule_container(f, out);
	rule_vm(f, out);
	rule_cpu(f, out);
	rule_iommu(f, out);
	rule_acs(f, out);
	rule_gpus(f, out);
	rule_gpu_groups(f, out);
	rule_host_roles(f, out);
	rule_bars(f, out);
	rule_host_tools(f, out);
	rule_notes(f, out);
}

void vw_findings_done(struct vw_findings *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->v[i].msg);
		free(fs->v[i].remedy);
	}
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}

const struct vw_finding *vw_findings_get(const struct vw_findings *fs, const char *code)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].code, code))
			return &fs->v[i];
	return NULL;
}

int vw_findings_exit_code(const struct vw_findings *fs)
{
	int rc = 0;

	for (size_t i = 0; i < fs->n; i++) {
		if (fs->v[i].sev == VW_SEV_BLOCKER)
			return 2;
		if (fs->v[i].sev == VW_SEV_FIXABLE)
			rc = 1;
	}
	return rc;
}

const char *vw_severity_name(enum vw_severity s)
{
	static const char *const names[] = {
		[VW_SEV_OK] = "ok", [VW_SEV_INFO] = "info", [VW_SEV_WARN] = "warning",
		[VW_SEV_FIXABLE] = "fixable", [VW_SEV_BLOCKER] = "blocker",
	};
	return (unsigned)s < VW_ARRAY_SIZE(names) ? names[s] : "info";
}
