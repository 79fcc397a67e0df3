/* SPDX-License-Identifier: GPL-2.0-or-later */
/* acs.c - ACS override parsing and the group prediction. */
#include "acs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The flags the IOMMU code requires (drivers/iommu/iommu.c REQ_ACS_FLAGS). */
#define REQ_ACS (VW_ACS_SV | VW_ACS_RR | VW_ACS_CR | VW_ACS_UF)

bool vw_acs_is_none(const struct vw_acs_override *ov)
{
	return !ov || (!ov->downstream && !ov->multifunction && !ov->nids);
}

/* 1 to 4 hex digits and nothing else up to end (sscanf's %4x would also
 * take "-7", "+f" or " 1"). */
static bool hex16(const char *p, const char *end, unsigned *out)
{
	unsigned v = 0;

	if (p == end || end - p > 4)
		return false;
	for (; p < end; p++) {
		char c = *p;

		if (c >= '0' && c <= '9')
			v = v * 16 + (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = v * 16 + (unsigned)((c | 0x20) - 'a' + 10);
		else
			return false;
	}
	*out = v;
	return true;
}

/* "id:vvvv:dddd" */
static bool parse_id(const char *tok, unsigned *v, unsigned *d)
{
	const char *colon;

	if (strncmp(tok, "id:", 3))
		return false;
	tok += 3;
	colon = strchr(tok, ':');
	return colon && hex16(tok, colon, v) && hex16(colon + 1, colon + 1 + strlen(colon + 1), d);
}

int vw_acs_parse(const char *spec, struct vw_acs_override *ov, struct vw_err *err)
{
	char *copy, *tok, *save = NULL;
	int rc = 0;

	memset(ov, 0, sizeof(*ov));
	if (!spec || !*spec || !strcmp(spec, "none"))
		return 0;
	copy = vw_xstrdup(spec);
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		unsigned v, d;

		if (!strcmp(tok, "downstream")) {
			ov->downstream = true;
		} else if (!strcmp(tok, "multifunction")) {
			ov->multifunction = true;
		} else if (parse_id(tok, &v, &d)) {
			if (ov->nids == VW_ACS_MAX_IDS)
				rc = vw_err_set(err, -EINVAL, _("the ACS override takes at most %d ids"),
						VW_ACS_MAX_IDS);
			else {
				ov->ids[ov->nids][0] = v;
				ov->ids[ov->nids][1] = d;
				ov->nids++;
			}
		} else {
			rc = vw_err_set(err, -EINVAL,
					_("unknown ACS override '%s' (use downstream, multifunction or id:vvvv:dddd)"),
					tok);
		}
	}
	free(copy);
	return rc;
}

void vw_acs_format(const struct vw_acs_override *ov, struct vw_buf *out)
{
	const char *sep = "";

	if (ov->downstream)
		vw_buf_adds(out, "downstream"), sep = ",";
	if (ov->multifunction)
		vw_buf_printf(out, "%smultifunction", sep), sep = ",";
	for (size_t i = 0; i < ov->nids; i++, sep = ",")
		vw_buf_printf(out, "%sid:%04x:%04x", sep, ov->ids[i][0], ov->ids[i][1]);
}

static bool overridden(const struct vw_pci_dev *d, const struct vw_acs_override *ov)
{
	/* The patch never touches a device with a real ACS capability. */
	if (!ov || d->has_acs || d->pcie_type == VW_PCIE_NONE)
		return false;
	for (size_t i = 0; i < ov->nids; i++)
		if (ov->ids[i][0] == d->vendor && ov->ids[i][1] == d->device)
			return true;
	if (ov->downstream && (d->pcie_type == VW_PCIE_DOWNSTREAM || d->pcie_type == VW_PCIE_ROOT_PORT))
		return true;
	if (ov->multifunction && d->multifunction &&
	    (d->pcie_type == VW_PCIE_ENDPOINT || d->pcie_type == VW_PCIE_LEGACY ||
	     d->pcie_type == VW_PCIE_RC_INTEGRATED))
		return true;
	return false;
}

static bool flags_enabled(const struct vw_pci_dev *d)
{
	unsigned want = REQ_ACS & (d->acs_cap | VW_ACS_EC);

	return d->has_acs && (d->acs_ctrl & want) == want;
}

bool vw_acs_enabled(const struct vw_facts *f, size_t i, const struct vw_acs_override *ov)
{
	const struct vw_pci_dev *d = &f->devs[i];

	if (overridden(d, ov))
		return true;
	switch (d->pcie_type) {
	case VW_PCIE_NONE:		/* a shared bus: anything may snoop */
	case VW_PCIE_PCIE_BRIDGE:
		return false;
	case VW_PCIE_DOWNSTREAM:
	case VW_PCIE_ROOT_PORT:
		return flags_enabled(d);
	case VW_PCIE_UPSTREAM:		/* ACS does not apply to these */
	case VW_PCIE_PCI_BRIDGE:
	case VW_PCIE_RC_EC:
		return true;
	default:
		/* Endpoints need ACS only when they are multifunction. */
		return d->multifunction ? flags_enabled(d) : true;
	}
}

/* Both ends of pci_for_each_dma_alias(): conventional bridges and PCIe-to-PCI
 * bridges make every device below them appear as the bridge. */
static int dma_alias(const struct vw_facts *f, int i)
{
	int alias = i;

	for (int p = f->devs[i].parent; p >= 0; p = f->devs[p].parent) {
		enum vw_pcie_type t = f->devs[p].pcie_type;

		if (t == VW_PCIE_NONE || t == VW_PCIE_PCI_BRIDGE || t == VW_PCIE_PCIE_BRIDGE)
			alias = p;
	}
	return alias;
}

static bool path_isolated(const struct vw_facts *f, int p, const bool *acs)
{
	for (; p >= 0; p = f->devs[p].parent)
		if (!acs[p])
			return false;
	return true;
}

/* Representative device of i's group (memoised in rep[]). */
static int rep_of(const struct vw_facts *f, int i, const bool *acs, int *rep)
{
	int pdev;

	if (rep[i] >= 0)
		return rep[i];
	rep[i] = i;	/* breaks cycles in a malformed parent chain */
	pdev = dma_alias(f, i);
	if (pdev != i) {
		rep[i] = rep_of(f, pdev, acs, rep);
		return rep[i];
	}
	/* Walk up while the upstream path is not isolated: the group is the
	 * bridge's group. */
	if (f->devs[i].parent >= 0 && !path_isolated(f, f->devs[i].parent, acs)) {
		rep[i] = rep_of(f, f->devs[i].parent, acs, rep);
		return rep[i];
	}
	/* A multifunction slot without ACS: the functions lacking it join
	 * the first such function (same parent, so the same walk above). */
	if (!acs[i] && f->devs[i].multifunction) {
		for (int j = i - 1; j >= 0 && vw_dev_same_slot(&f->devs[j], &f->devs[i]); j--)
			if (!acs[j] && f->devs[j].multifunction)
				rep[i] = rep_of(f, j, acs, rep);
	}
	return rep[i];
}

static bool same_partition(const struct vw_facts *f, const int *pred)
{
	/* Two devices share a predicted group iff they share a real one; the
	 * devices the kernel left out of every group (host bridges, often)
	 * say nothing either way. */
	for (size_t i = 0; i < f->ndevs; i++) {
		if (f->devs[i].group < 0)
			continue;
		for (size_t j = i + 1; j < f->ndevs; j++)
			if (f->devs[j].group >= 0 &&
			    (pred[i] == pred[j]) != (f->devs[i].group == f->devs[j].group))
				return false;
	}
	return true;
}

static void simulate(const struct vw_facts *f, const struct vw_acs_override *ov, int *group, size_t *ngroups)
{
	bool *acs = vw_xcalloc(f->ndevs + 1, sizeof(*acs));
	int *rep = vw_xcalloc(f->ndevs + 1, sizeof(*rep));
	int *num = vw_xcalloc(f->ndevs + 1, sizeof(*num));

	for (size_t i = 0; i < f->ndevs; i++) {
		acs[i] = vw_acs_enabled(f, i, ov);
		rep[i] = -1;
		num[i] = -1;
	}
	*ngroups = 0;
	for (size_t i = 0; i < f->ndevs; i++) {
		int r = rep_of(f, (int)i, acs, rep);

		if (num[r] < 0)
			num[r] = (int)(*ngroups)++;
		group[i] = num[r];
	}
	free(acs);
	free(rep);
	free(num);
}

void vw_acs_simulate(const struct vw_facts *f, const struct vw_acs_override *ov, struct vw_acs_preview *out)
{
	struct vw_acs_override now = { 0 };
	int *today;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->group = vw_xcalloc(f->ndevs + 1, sizeof(*out->group));
	out->known = true;
	for (size_t i = 0; i < f->ndevs; i++)
		if (!f->devs[i].config_full)
			out->known = false;
	simulate(f, ov, out->group, &out->ngroups);

	/* Check the model against what the kernel did with today's cmdline. */
	if (f->kernel.acs_override_active)
		vw_acs_parse(vw_cmdline_get(f->kernel.params, f->kernel.nparams, "pcie_acs_override", NULL),
			     &now, NULL);
	today = vw_xcalloc(f->ndevs + 1, sizeof(*today));
	simulate(f, &now, today, &n);
	out->model_matches = f->ngroups > 0 && same_partition(f, today);
	free(today);
}

void vw_acs_preview_done(struct vw_acs_preview *p)
{
	free(p->group);
	memset(p, 0, sizeof(*p));
}
