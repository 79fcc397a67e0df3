/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c - `check` and `groups` output. */
#define _GNU_SOURCE	/* wcwidth() */
#include "report.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

const char *vw_severity_tag(enum vw_severity s)
{
	static const char *const tags[] = {
		/* TRANSLATORS: severity tags of `vfiowiz check`: exactly 4 columns each. */
		[VW_SEV_OK] = N_(" OK "), [VW_SEV_INFO] = N_("INFO"), [VW_SEV_WARN] = N_("WARN"),
		/* TRANSLATORS: severity tags of `vfiowiz check`: exactly 4 columns each. */
		[VW_SEV_FIXABLE] = N_("FIX "), [VW_SEV_BLOCKER] = N_("STOP"),
	};
	return (unsigned)s < VW_ARRAY_SIZE(tags) && tags[s] ? _(tags[s]) : "????";
}

static bool limited(const struct vw_findings *fs)
{
	return vw_findings_exit_code(fs) == 0 && vw_findings_get(fs, "gpu-limits");
}

const char *vw_report_verdict(const struct vw_findings *fs)
{
	if (limited(fs))
		return _("Passthrough is possible only with the limits marked WARN above.");
	switch (vw_findings_exit_code(fs)) {
	case 0: return _("Ready for passthrough.");
	case 1: return _("Ready after changes the wizard can make.");
	default: return _("Passthrough is not possible on this machine as it is.");
	}
}

const char *vw_report_next_step(const struct vw_findings *fs)
{
	if (limited(fs))
		return _("Next: run vfiowiz to choose which devices go to the VM together.");
	switch (vw_findings_exit_code(fs)) {
	case 0: return _("Next: run vfiowiz to choose a GPU and set it up.");
	case 1: return _("Next: run vfiowiz; it makes those changes and says when to reboot.");
	default: return _("Next: fix the lines marked STOP, then run vfiowiz check again.");
	}
}

static const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

/* Display columns of a UTF-8 string (accents are one column, not two bytes). */
static size_t columns(const char *s)
{
	size_t n = 0;
	mbstate_t st;
	wchar_t wc;

	memset(&st, 0, sizeof(st));
	while (*s) {
		size_t len = mbrtowc(&wc, s, MB_CUR_MAX, &st);
		int w;

		if (len == (size_t)-1 || len == (size_t)-2) {	/* not text: a byte a column */
			memset(&st, 0, sizeof(st));
			len = 1;
			w = 1;
		} else {
			w = wcwidth(wc);
		}
		n += w > 0 ? (size_t)w : 0;
		s += len ? len : 1;
	}
	return n;
}

/* "Label:" padded to a column, then the value. */
static void field(struct vw_buf *out, const char *label, const char *value)
{
	size_t w = columns(label);

	vw_buf_adds(out, label);
	do
		vw_buf_addc(out, ' ');
	while (++w < 11);
	vw_buf_printf(out, "%s\n", value);
}

void vw_report_check_text(struct vw_buf *out, const struct vw_facts *f, const struct vw_findings *fs)
{
	const struct vw_cpu *c = &f->cpu;
	char *boot;

	field(out, _("Host:"), *f->root ? f->root : _("this machine"));
	field(out, _("CPU:"), dash(c->model));
	field(out, _("Kernel:"), dash(f->kernel.release));
	field(out, _("System:"), dash(f->distro.pretty_name));
	/* TRANSLATORS: firmware (EFI or BIOS), bootloader name, initramfs tool name. */
	boot = vw_xasprintf(_("%s, bootloader %s, initramfs %s"), f->fw.efi ? "EFI" : "BIOS",
			    vw_bootloader_name(f->distro.bootloader), vw_initramfs_name(f->distro.initramfs));
	field(out, _("Boot:"), boot);
	free(boot);
	vw_buf_addc(out, '\n');
	for (size_t i = 0; i < fs->n; i++) {
		const struct vw_finding *x = &fs->v[i];

		vw_buf_printf(out, "[%s] %s\n", vw_severity_tag(x->sev), x->msg);
		if (*x->remedy)
			vw_buf_printf(out, "       -> %s\n", x->remedy);
	}
	vw_buf_printf(out, "\n%s %s\n", vw_report_verdict(fs), vw_report_next_step(fs));
}

static void json_host(struct vw_json *j, const struct vw_facts *f)
{
	const struct vw_cpu *c = &f->cpu;
	const struct vw_kernel *k = &f->kernel;

	vw_json_obj_begin(j, "cpu");
	vw_json_str(j, "vendor", c->vendor_id);
	vw_json_str(j, "model", c->model);
	vw_json_bool(j, "vmx", c->vmx);
	vw_json_bool(j, "svm", c->svm);
	vw_json_bool(j, "disabled_by_bios", c->virt_disabled_by_bios);
	vw_json_bool(j, "hypervisor", c->hypervisor);
	vw_json_str(j, "hypervisor_name", c->hypervisor_name);
	vw_json_bool(j, "dmi", c->dmi_present);
	vw_json_obj_end(j);

	vw_json_obj_begin(j, "container");
	vw_json_bool(j, "inside", f->container.inside);
	vw_json_str(j, "kind", f->container.kind);
	vw_json_str(j, "evidence", f->container.evidence);
	vw_json_obj_end(j);

	vw_json_obj_begin(j, "firmware");
	vw_json_bool(j, "efi", f->fw.efi);
	vw_json_bool(j, "dmar", f->fw.dmar);
	vw_json_bool(j, "ivrs", f->fw.ivrs);
	vw_json_obj_end(j);

	vw_json_obj_begin(j, "kernel");
	vw_json_str(j, "release", k->release);
	vw_json_str(j, "cmdline", k->cmdline);
	vw_json_str(j, "config", k->config_source);
	vw_json_tri(j, "intel_iommu_default_on", k->intel_default_on);
	vw_json_tri(j, "intel_iommu_default_on_intgpu_off", k->intel_default_intgpu_off);
	vw_json_tri(j, "acs_override_support", k->acs_override_support);
	vw_json_bool(j, "acs_override_active", k->acs_override_active);
	vw_json_obj_end(j);

	vw_json_obj_begin(j, "iommu");
	vw_json_arr_begin(j, "units");
	for (size_t i = 0; i < f->iommu.nunits; i++)
		vw_json_str(j, NULL, f->iommu.units[i]);
	vw_json_arr_end(j);
	vw_json_int(j, "groups", (long long)f->iommu.ngroups);
	vw_json_tri(j, "interrupt_remapping", f->iommu.irq_remap);
	vw_json_bool(j, "cmdline_off", f->iommu.cmdline_off);
	vw_json_bool(j, "cmdline_on", f->iommu.cmdline_on);
	vw_json_bool(j, "passthrough", f->iommu.passthrough);
	vw_json_obj_end(j);

	vw_json_obj_begin(j, "distro");
	vw_json_str(j, "id", f->distro.id);
	vw_json_str(j, "version_id", f->distro.version_id);
	vw_json_str(j, "pretty_name", f->distro.pretty_name);
	vw_json_bool(j, "proxmox", f->distro.proxmox);
	vw_json_str(j, "bootloader", vw_bootloader_name(f->distro.bootloader));
	vw_json_str(j, "initramfs", vw_initramfs_name(f->distro.initramfs));
	vw_json_obj_end(j);
}

static void json_companions(struct vw_json *j, const struct vw_facts *f, size_t gpu)
{
	vw_json_arr_begin(j, "companions");
	for (size_t i = 0; i < f->ndevs; i++)
		if (f->devs[i].role == VW_ROLE_COMPANION && f->devs[i].gpu == (int)gpu)
			vw_json_str(j, NULL, f->devs[i].addr);
	vw_json_arr_end(j);
}

void vw_report_check_json(struct vw_buf *out, const struct vw_facts *f, const struct vw_findings *fs)
{
	static const char *const verdicts[] = { "ready", "ready-after-changes", "not-possible" };
	int rc = vw_findings_exit_code(fs);
	struct vw_json j;

	vw_json_init(&j, out);
	vw_json_obj_begin(&j, NULL);
	vw_json_str(&j, "schema", "vfiowiz-check/1");
	vw_json_str(&j, "verdict", verdicts[rc]);
	vw_json_int(&j, "exit", rc);
	vw_json_bool(&j, "limited", limited(fs));
	vw_json_str(&j, "next_step", vw_report_next_step(fs));
	vw_json_obj_begin(&j, "host");
	json_host(&j, f);
	vw_json_obj_end(&j);
	vw_json_arr_begin(&j, "gpus");
	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[i];

		if (d->role != VW_ROLE_GPU)
			continue;
		vw_json_obj_begin(&j, NULL);
		vw_json_str(&j, "address", d->addr);
		vw_json_hex(&j, "vendor_id", d->vendor, 4);
		vw_json_hex(&j, "device_id", d->device, 4);
		vw_json_hex(&j, "class", d->class_code >> 8, 4);
		vw_json_str(&j, "vendor", d->vendor_name);
		vw_json_str(&j, "device", d->device_name);
		vw_json_str(&j, "driver", d->driver);
		vw_json_tri(&j, "boot_vga", d->boot_vga);
		vw_json_int(&j, "numa_node", d->numa_node);
		if (d->group >= 0)
			vw_json_int(&j, "iommu_group", d->group);
		else
			vw_json_null(&j, "iommu_group");
		json_companions(&j, f, i);
		vw_json_obj_end(&j);
	}
	vw_json_arr_end(&j);
	vw_json_arr_begin(&j, "findings");
	for (size_t i = 0; i < fs->n; i++) {
		vw_json_obj_begin(&j, NULL);
		vw_json_str(&j, "code", fs->v[i].code);
		vw_json_str(&j, "severity", vw_severity_name(fs->v[i].sev));
		vw_json_str(&j, "message", fs->v[i].msg);
		vw_json_str(&j, "remedy", fs->v[i].remedy);
		vw_json_obj_end(&j);
	}
	vw_json_arr_end(&j);
	vw_json_obj_end(&j);
}

const char *vw_verdict_text(enum vw_group_verdict v)
{
	switch (v) {
	case VW_GROUP_ISOLATED: return _("isolated");
	case VW_GROUP_BRIDGES_ONLY: return _("shares only with bridges: fine");
	case VW_GROUP_SHARED: return _("shares with other devices: they must go along, or an ACS override is needed");
	case VW_GROUP_EMPTY: return _("no devices");
	}
	return "";
}

void vw_role_text(struct vw_buf *out, const struct vw_facts *f, const struct vw_pci_dev *d)
{
	switch (d->role) {
	case VW_ROLE_GPU:
		vw_buf_adds(out, d->boot_vga == 1 ? _("GPU, boot display") : _("GPU"));
		break;
	case VW_ROLE_COMPANION:
		vw_buf_printf(out, _("goes with GPU %s"), f->devs[d->gpu].addr);
		break;
	case VW_ROLE_NVSWITCH:
		vw_buf_adds(out, _("NVSwitch"));
		break;
	case VW_ROLE_BRIDGE:
		vw_buf_adds(out, _("bridge"));
		break;
	case VW_ROLE_OTHER:
		break;
	}
	vw_sharing_text(out, f, d);
}

void vw_sharing_text(struct vw_buf *out, const struct vw_facts *f, const struct vw_pci_dev *d)
{
	const char *sep = d->role == VW_ROLE_OTHER ? "" : ", ";

	if (d->vf) {
		/* TRANSLATORS: N, the PF's address: "virtual function 3 of 0000:00:02.0" */
		vw_buf_printf(out, _("%svirtual function %d of %s"), sep, d->vf_index + 1, f->devs[d->physfn].addr);
		sep = ", ";
	} else if (d->sriov_total > 0) {
		/* TRANSLATORS: "SR-IOV: 7 of 7 virtual functions enabled" */
		vw_buf_printf(out, _("%sSR-IOV: %d of %d virtual functions enabled"), sep, d->sriov_num, d->sriov_total);
		sep = ", ";
	}
	if (d->nmdev_types) {
		vw_buf_printf(out, ngettext("%s%zu mediated device type", "%s%zu mediated device types",
					    d->nmdev_types), sep, d->nmdev_types);
		sep = ", ";
	}
	if (d->vgpu_types && *d->vgpu_current) {
		/* TRANSLATORS: an NVIDIA vGPU type id, as the driver lists it */
		vw_buf_printf(out, _("%svGPU type %s"), sep, d->vgpu_current);
	} else if (d->vgpu_types) {
		size_t n = 0;

		while (d->vgpu_types[n])
			n++;
		vw_buf_printf(out, ngettext("%s%zu vGPU type can be created", "%s%zu vGPU types can be created", n),
			      sep, n);
	}
}

void vw_host_role_text(struct vw_buf *out, const struct vw_pci_dev *d)
{
	const char *why = d->host_role_why ? d->host_role_why : "";
	size_t start = out->len;

	/* One reason string covers every role: said once, after the labels. */
	if (d->host_role & VW_HOST_STORAGE)
		vw_buf_adds(out, _("host storage"));
	if (d->host_role & VW_HOST_NETWORK)
		vw_buf_printf(out, "%s%s", out->len > start ? ", " : "", _("host network"));
	if (d->host_role & VW_HOST_INPUT)
		vw_buf_printf(out, "%s%s", out->len > start ? ", " : "", _("host input"));
	if (out->len > start && *why)
		vw_buf_printf(out, ": %s", why);
}

static void text_dev(struct vw_buf *out, const struct vw_facts *f, const struct vw_pci_dev *d)
{
	size_t mark;

	vw_buf_printf(out, "  %s [%04x] %04x:%04x %s %s", d->addr, d->class_code >> 8, d->vendor,
		      d->device, dash(d->vendor_name), dash(d->device_name));
	if (*d->driver)
		vw_buf_printf(out, " (%s)", d->driver);
	mark = out->len;
	vw_buf_adds(out, "  <- ");
	vw_role_text(out, f, d);
	if (d->host_role) {
		if (out->len > mark + 5)
			vw_buf_adds(out, "; ");
		vw_host_role_text(out, d);
	}
	if (out->len == mark + 5) {	/* no role to show */
		out->len = mark;
		out->data[mark] = '\0';
	}
	if (*d->note)
		vw_buf_printf(out, "  !! %s", d->note);
	vw_buf_addc(out, '\n');
}

void vw_report_groups_text(struct vw_buf *out, const struct vw_facts *f, bool all)
{
	size_t loose = 0;

	if (!f->ngroups)
		vw_buf_printf(out, "%s\n", _("No IOMMU groups: the IOMMU is off, or this is a VM without a virtual IOMMU (see 'vfiowiz check')."));
	for (size_t i = 0; i < f->ngroups; i++) {
		const struct vw_group *g = &f->groups[i];

		if (*g->type)
			/* TRANSLATORS: group number, its kernel type (DMA, identity), the verdict. */
			vw_buf_printf(out, _("IOMMU group %d (%s): %s\n"), g->id, g->type,
				      vw_verdict_text(g->verdict));
		else
			vw_buf_printf(out, _("IOMMU group %d: %s\n"), g->id, vw_verdict_text(g->verdict));
		for (size_t k = 0; k < g->ndevs; k++)
			text_dev(out, f, &f->devs[g->devs[k]]);
	}
	for (size_t i = 0; i < f->ndevs; i++)
		loose += f->devs[i].group < 0;
	if (!loose)
		return;
	if (!all) {
		vw_buf_printf(out, ngettext("%zu device belongs to no IOMMU group (--all lists it).\n",
					    "%zu devices belong to no IOMMU group (--all lists them).\n", loose), loose);
		return;
	}
	vw_buf_printf(out, "%s\n", _("Devices in no IOMMU group:"));
	for (size_t i = 0; i < f->ndevs; i++)
		if (f->devs[i].group < 0)
			text_dev(out, f, &f->devs[i]);
}

static const char *pcie_name(enum vw_pcie_type t)
{
	switch (t) {
	case VW_PCIE_NONE: return "pci";
	case VW_PCIE_ENDPOINT: return "endpoint";
	case VW_PCIE_LEGACY: return "legacy-endpoint";
	case VW_PCIE_ROOT_PORT: return "root-port";
	case VW_PCIE_UPSTREAM: return "upstream-port";
	case VW_PCIE_DOWNSTREAM: return "downstream-port";
	case VW_PCIE_PCI_BRIDGE: return "pcie-to-pci-bridge";
	case VW_PCIE_PCIE_BRIDGE: return "pci-to-pcie-bridge";
	case VW_PCIE_RC_INTEGRATED: return "rc-integrated";
	case VW_PCIE_RC_EC: return "rc-event-collector";
	}
	return "unknown";
}

/* SR-IOV, mdev and vGPU keys (docs/json-schema.md). */
static void json_sharing(struct vw_json *j, const struct vw_facts *f, const struct vw_pci_dev *d)
{
	if (d->sriov_total > 0) {
		vw_json_obj_begin(j, "sriov");
		vw_json_int(j, "total_vfs", d->sriov_total);
		vw_json_int(j, "enabled_vfs", d->sriov_num);
		vw_json_tri(j, "drivers_autoprobe", d->sriov_autoprobe);
		vw_json_arr_begin(j, "vfs");
		for (size_t k = 0; k < d->nvfs; k++)
			vw_json_str(j, NULL, f->devs[d->vfs[k]].addr);
		vw_json_arr_end(j);
		vw_json_obj_end(j);
	} else {
		vw_json_null(j, "sriov");
	}
	vw_json_str(j, "physfn", d->vf ? f->devs[d->physfn].addr : NULL);
	vw_json_arr_begin(j, "mdev_types");
	for (size_t k = 0; k < d->nmdev_types; k++) {
		const struct vw_mdev_type *t = &d->mdev_types[k];

		vw_json_obj_begin(j, NULL);
		vw_json_str(j, "id", t->id);
		vw_json_str(j, "name", t->name);
		vw_json_str(j, "description", t->description);
		vw_json_str(j, "device_api", t->device_api);
		vw_json_int(j, "available", t->available);
		vw_json_obj_end(j);
	}
	vw_json_arr_end(j);
	if (d->vgpu_types) {
		vw_json_arr_begin(j, "vgpu_types");
		for (size_t k = 0; d->vgpu_types[k]; k++)
			vw_json_str(j, NULL, d->vgpu_types[k]);
		vw_json_arr_end(j);
	} else {
		vw_json_null(j, "vgpu_types");
	}
	vw_json_str(j, "vgpu_current", d->vgpu_types ? d->vgpu_current : NULL);
}

static void json_dev(struct vw_json *j, const struct vw_facts *f, const struct vw_pci_dev *d)
{
	vw_json_obj_begin(j, NULL);
	vw_json_str(j, "address", d->addr);
	vw_json_hex(j, "class", d->class_code, 6);
	vw_json_hex(j, "vendor_id", d->vendor, 4);
	vw_json_hex(j, "device_id", d->device, 4);
	if (d->has_subsys) {
		vw_json_hex(j, "subsystem_vendor_id", d->subvendor, 4);
		vw_json_hex(j, "subsystem_device_id", d->subdevice, 4);
	} else {
		vw_json_null(j, "subsystem_vendor_id");
		vw_json_null(j, "subsystem_device_id");
	}
	vw_json_str(j, "vendor", d->vendor_name);
	vw_json_str(j, "device", d->device_name);
	vw_json_str(j, "driver", d->driver);
	vw_json_str(j, "role", vw_role_name(d->role));
	vw_json_str(j, "gpu", d->gpu >= 0 ? f->devs[d->gpu].addr : NULL);
	vw_json_str(j, "parent", d->parent >= 0 ? f->devs[d->parent].addr : NULL);
	vw_json_tri(j, "boot_vga", d->boot_vga);
	vw_json_int(j, "numa_node", d->numa_node);
	vw_json_str(j, "reset_method", d->reset_method);
	vw_json_str(j, "pcie", pcie_name(d->pcie_type));
	if (d->has_acs) {
		vw_json_obj_begin(j, "acs");
		vw_json_hex(j, "cap", d->acs_cap, 4);
		vw_json_hex(j, "ctrl", d->acs_ctrl, 4);
		vw_json_obj_end(j);
	} else {
		vw_json_null(j, "acs");
	}
	json_sharing(j, f, d);
	vw_json_str(j, "note", d->note);
	{
		char roles[64];

		vw_json_arr_begin(j, "host_role");
		vw_host_role_names(d->host_role, roles, sizeof(roles));
		for (char *r = roles, *next; *r; r = next) {
			next = r + strcspn(r, ",");
			if (*next)
				*next++ = '\0';
			vw_json_str(j, NULL, r);
		}
		vw_json_arr_end(j);
	}
	vw_json_str(j, "host_role_why", d->host_role_why ? d->host_role_why : "");
	vw_json_obj_end(j);
}

void vw_report_groups_json(struct vw_buf *out, const struct vw_facts *f, bool all)
{
	struct vw_json j;

	vw_json_init(&j, out);
	vw_json_obj_begin(&j, NULL);
	vw_json_str(&j, "schema", "vfiowiz-groups/1");
	vw_json_arr_begin(&j, "groups");
	for (size_t i = 0; i < f->ngroups; i++) {
		const struct vw_group *g = &f->groups[i];

		vw_json_obj_begin(&j, NULL);
		vw_json_int(&j, "id", g->id);
		vw_json_str(&j, "type", g->type);
		vw_json_str(&j, "verdict", vw_verdict_name(g->verdict));
		vw_json_str(&j, "note", g->note);
		vw_json_arr_begin(&j, "devices");
		for (size_t k = 0; k < g->ndevs; k++)
			json_dev(&j, f, &f->devs[g->devs[k]]);
		vw_json_arr_end(&j);
		vw_json_obj_end(&j);
	}
	vw_json_arr_end(&j);
	if (all) {
		vw_json_arr_begin(&j, "ungrouped");
		for (size_t i = 0; i < f->ndevs; i++)
			if (f->devs[i].group < 0)
				json_dev(&j, f, &f->devs[i]);
		vw_json_arr_end(&j);
	}
	vw_json_obj_end(&j);
}
