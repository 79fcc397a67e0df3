/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pipeline.c - the whole plan: NVLink sets, unit, host, VM, guest access. */
#include "pipeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void vw_pipeline_info_done(struct vw_plan_info *pi)
{
	vw_nvlink_done(&pi->nl);
	vw_unit_done(&pi->u);
	vw_hostplan_done(&pi->hp);
	vw_vm_info_done(&pi->vm);
	vw_access_info_done(&pi->acc);
	for (size_t i = 0; i < pi->nnotes; i++)
		free(pi->notes[i]);
	free(pi->notes);
	memset(pi, 0, sizeof(*pi));
}

int vw_pipeline_nvlink(struct vw_nvlink *nl, const struct vw_sysroot *sr, const struct vw_facts *f,
		   const struct vw_choices *c, struct vw_err *err)
{
	struct vw_buf sets = VW_BUF_INIT;
	char where[300];
	int r;

	if (!c->nvlink_known)
		return vw_nvlink_probe(nl, sr, f, err);
	for (size_t i = 0; i < c->nnvlink; i++)
		vw_buf_printf(&sets, "%s%s", i ? " " : "", c->nvlink[i]);
	r = vw_nvlink_from_string(nl, sets.data ? sets.data : "", err);
	vw_buf_done(&sets);
	if (r < 0)
		vw_err_prefix(err, "%s'nvlink'", vw_choices_where(c, c->nvlink_line, where, sizeof(where)));
	return r;
}

static void add_notes(struct vw_plan_info *pi, char *const *notes, size_t n)
{
	for (size_t i = 0; i < n && notes[i]; i++) {
		pi->notes = vw_xreallocarray(pi->notes, pi->nnotes + 1, sizeof(char *));
		pi->notes[pi->nnotes++] = vw_xstrdup(notes[i]);
	}
}

/* The unit's warnings, but for the boot display: the host plan says what
 * happens to it in more words. */
static void unit_notes(struct vw_plan_info *pi)
{
	for (size_t i = 0; i < pi->u.issues.n; i++) {
		const struct vw_finding *x = &pi->u.issues.v[i];
		char *msg = x->msg;

		size_t cl = strlen(x->code);

		/* no-group: said by vw_pipeline_build() with the plan's answer. */
		if (x->sev < VW_SEV_WARN || !strcmp(x->code, "boot-vga") || !strcmp(x->code, "no-group"))
			continue;
		/* What the host loses by the user's opt-in: with what to mind. */
		if (cl > 8 && !strcmp(x->code + cl - 8, "-allowed") && *x->remedy) {
			msg = vw_xasprintf("%s %s", x->msg, x->remedy);
			add_notes(pi, &msg, 1);
			free(msg);
		} else {
			add_notes(pi, &msg, 1);
		}
	}
}

int vw_pipeline_dynamic_check(const struct vw_facts *f, const struct vw_unit *u, const struct vw_choices *c,
			  struct vw_err *err)
{
	char where[300];

	if (c->gpu_mode != VW_GPU_DYNAMIC)
		return 0;
	vw_choices_where(c, c->gpu_mode_line, where, sizeof(where));
	/* What the facts know the host needs is a blocker of the unit already
	 * (unit.h host-storage, host-network), unless opted in.  Beyond that:
	 * a network or storage controller in a GPU's IOMMU group is the host's
	 * own (chipset) one, whether chosen or pulled in by the group; a NIC
	 * of its own group, given to the VM on purpose, is fine. */
	for (size_t k = 0; k < u->n; k++) {
		const struct vw_pci_dev *d = &f->devs[u->m[k].dev];
		unsigned base = d->class_code >> 16;

		if (d->group < 0 || (base == 0x01 && c->allow_host_storage) ||
		    (base == 0x02 && c->allow_host_network) || (base != 0x01 && base != 0x02))
			continue;
		for (size_t j = 0; j < u->n; j++) {
			const struct vw_pci_dev *g = &f->devs[u->m[j].dev];

			if (g->group == d->group && vw_dev_is_display(g))
				return vw_err_set(err, -EPERM,
						  _("%sgpu_mode = dynamic refused: %s (%s) is in IOMMU group %d with the GPU %s, so the hooks would take it from the host at every start of the VM: the host may lose its network or disks (and this SSH session). Move the GPU to a slot with an IOMMU group of its own, or keep gpu_mode = static"),
						  where, d->addr, *d->device_name ? d->device_name : _("unknown device"),
						  d->group, g->addr);
		}
	}
	return 0;
}

/* A member in no IOMMU group cannot be passed through: refused, unless
 * this very plan turns the IOMMU on (then the groups are known only after
 * the reboot, and the user is told to look at them then).  A host plan
 * that changes nothing binds nothing new (the same answers applied before
 * the reboot): only said. */
static int no_group(struct vw_plan_info *pi, const struct vw_facts *f, bool host_changes,
		    struct vw_err *err)
{
	const char *addr = NULL;
	char *msg;

	for (size_t i = 0; i < pi->u.n && !addr; i++)
		if (f->devs[pi->u.m[i].dev].group < 0)
			addr = f->devs[pi->u.m[i].dev].addr;
	if (!addr)
		return 0;
	if (pi->hp.turns_iommu_on || !host_changes) {
		msg = vw_xstrdup(pi->hp.turns_iommu_on
				 ? _("This host has no IOMMU groups yet: the plan turns the IOMMU on, and the groups are known only after the reboot. Then run vfiowiz again (or 'vfiowiz groups') to see which devices share a group with the chosen ones before they are used.")
				 : f->iommu.ngroups ? _("A device of the unit is in no IOMMU group: it cannot be passed through.")
				 : _("This host has no IOMMU groups: nothing can be passed through until the IOMMU is on."));
		add_notes(pi, &msg, 1);
		free(msg);
		return 0;
	}
	if (f->iommu.ngroups)
		return vw_err_set(err, -EPERM,
				  _("%s is in no IOMMU group, although the IOMMU is on: it cannot be passed through. See 'vfiowiz groups --all'; a device behind a bridge the IOMMU does not cover cannot go to a VM."),
				  addr);
	if (!f->fw.dmar && !f->fw.ivrs)
		return vw_err_set(err, -EPERM,
				  _("%s is in no IOMMU group: the firmware publishes no IOMMU (no DMAR or IVRS table), and no kernel parameter can turn it on. Enable VT-d (Intel) or AMD-Vi/IOMMU (AMD) in the firmware setup, boot, then run vfiowiz again."),
				  addr);
	return vw_err_set(err, -EPERM,
			  _("%s is in no IOMMU group: the IOMMU is off, and this plan does not turn it on (the parameter that turns it off is not in a file the plan edits: look at the firmware's boot entry or the boot menu). Turn the IOMMU on, boot, then run vfiowiz again."),
			  addr);
}

int vw_pipeline_build(struct vw_plan *plan, const struct vw_sysroot *sr, const struct vw_facts *f,
		      const struct vw_choices *c, struct vw_plan_info *out, struct vw_err *err)
{
	int *devs;
	size_t nbefore;
	int r;

	vw_pipeline_info_done(out);
	r = vw_pipeline_nvlink(&out->nl, sr, f, c, err);
	if (r < 0)
		return r;
	r = vw_unit_build_choices(&out->u, f, &out->nl, c, err);
	if (r < 0)
		return r;
	{
		/* The first blocker with its remedy, then the others' messages:
		 * the user learns every reason at once. */
		struct vw_buf b = VW_BUF_INIT;

		for (size_t i = 0; i < out->u.issues.n; i++) {
			const struct vw_finding *x = &out->u.issues.v[i];

			if (x->sev != VW_SEV_BLOCKER)
				continue;
			if (!b.len)
				vw_buf_printf(&b, "%s%s%s", x->msg, *x->remedy ? " " : "", x->remedy);
			else
				vw_buf_printf(&b, " %s %s", _("Also:"), x->msg);
		}
		if (b.len) {
			r = vw_err_set(err, -EPERM, "%s", b.data);
			vw_buf_done(&b);
			return r;
		}
	}
	r = vw_pipeline_dynamic_check(f, &out->u, c, err);
	if (r < 0)
		return r;
	unit_notes(out);

	devs = vw_xcalloc(out->u.n + 1, sizeof(int));
	for (size_t i = 0; i < out->u.n; i++)
		devs[i] = out->u.m[i].dev;
	nbefore = plan->n;
	r = vw_hostplan_build(plan, &out->hp, f, sr, c, devs, out->u.n, err);
	free(devs);
	if (r < 0)
		return r;
	r = no_group(out, f, plan->n > nbefore, err);
	if (r < 0)
		return r;
	add_notes(out, out->hp.notes, out->hp.nnotes);

	r = vw_vmplan_build(plan, sr, f, c, &out->u, &out->vm, err);
	if (r < 0)
		return r;
	add_notes(out, out->vm.notes, out->vm.nnotes);

	r = vw_accessplan_build(plan, sr, f, c, &out->vm, &out->acc, err);
	if (r < 0)
		return r;
	add_notes(out, out->acc.notes, out->acc.nnotes);
	return 0;
}
