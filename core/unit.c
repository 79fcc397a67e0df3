/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit.c - the unit of assignment, closed over slots, NVLink sets and IOMMU
 * groups. */
#include "unit.h"
#include "cmdline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct expand {
	const struct vw_facts *f;
	const struct vw_nvlink *nl;
	const struct vw_unit_opts *o;
	struct vw_unit *u;
	signed char *in;	/* per device: 1 member */
	int *blocked;		/* devices the unit needs but opts->keep_out holds */
	int *blocked_via;
	size_t nblocked;
};

static bool in_list(const char *const *list, const char *addr)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(list[i], addr))
			return true;
	return false;
}

static bool kept_out(const struct expand *x, int dev)
{
	return x->o && in_list(x->o->keep_out, x->f->devs[dev].addr);
}

static void block(struct expand *x, int dev, int via)
{
	for (size_t i = 0; i < x->nblocked; i++)
		if (x->blocked[i] == dev)
			return;
	x->blocked = vw_xreallocarray(x->blocked, x->nblocked + 1, sizeof(int));
	x->blocked_via = vw_xreallocarray(x->blocked_via, x->nblocked + 1, sizeof(int));
	x->blocked[x->nblocked] = dev;
	x->blocked_via[x->nblocked++] = via;
}

static void add(struct expand *x, int dev, enum vw_unit_why why, int via)
{
	struct vw_unit *u = x->u;

	if (x->in[dev])
		return;
	if (kept_out(x, dev)) {
		block(x, dev, via);
		return;
	}
	x->in[dev] = 1;
	u->m = vw_xreallocarray(u->m, u->n + 1, sizeof(*u->m));
	u->m[u->n].dev = dev;
	u->m[u->n].why = why;
	u->m[u->n].via = via;
	u->n++;
}

static void add_int(int **v, size_t *n, int x)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i] == x)
			return;
	*v = vw_xreallocarray(*v, *n + 1, sizeof(int));
	(*v)[(*n)++] = x;
}

static void issue(struct vw_unit *u, const char *code, enum vw_severity sev, char *msg, char *remedy)
{
	vw_findings_add(&u->issues, code, sev, msg, remedy);
}

/* One member's neighbourhood: its slot, its group, its NVLink set. */
static void expand_one(struct expand *x, int dev)
{
	const struct vw_facts *f = x->f;
	const struct vw_pci_dev *d = &f->devs[dev];
	const struct vw_nvlink_set *set;

	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *o = &f->devs[i];

		if ((int)i == dev)
			continue;
		if (vw_dev_same_slot(d, o) && !vw_dev_is_bridge(o))
			add(x, (int)i, VW_UNIT_FUNCTION, dev);
		else if (d->group >= 0 && o->group == d->group) {
			if (vw_dev_is_bridge(o))
				add_int(&x->u->bridges, &x->u->nbridges, (int)i);
			else
				add(x, (int)i, VW_UNIT_GROUP, dev);
		}
	}
	if (x->o && x->o->allow_split_nvlink)
		return;
	set = vw_nvlink_set_of(x->nl, d->addr);
	for (size_t k = 0; set && k < set->n; k++) {
		int i = vw_facts_find_dev(f, set->addrs[k]);

		if (i < 0 || i == dev || x->in[i] || kept_out(x, i))
			continue;
		add(x, i, f->devs[i].role == VW_ROLE_NVSWITCH ? VW_UNIT_NVSWITCH : VW_UNIT_NVLINK_PEER, dev);
	}
}

static int cmp_member(const void *a, const void *b)
{
	const struct vw_unit_member *x = a, *y = b;
	return (x->dev > y->dev) - (x->dev < y->dev);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* A list of addresses for messages: "0000:01:00.0, 0000:02:00.0". */
static void addr_list(struct vw_buf *b, const struct vw_facts *f, const int *dev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		vw_buf_printf(b, "%s%s", i ? ", " : "", f->devs[dev[i]].addr);
}

static const char *dev_label(const struct vw_pci_dev *d)
{
	return *d->device_name ? d->device_name : vw_role_name(d->role);
}

/* NVLink sets the unit touches: members outside the unit split them. */
static void nvlink_issues(struct expand *x)
{
	const struct vw_facts *f = x->f;
	const struct vw_nvlink *nl = x->nl;
	struct vw_unit *u = x->u;
	bool touched_any = false;

	for (size_t s = 0; nl && s < nl->nsets; s++) {
		const struct vw_nvlink_set *set = &nl->sets[s];
		int *out = NULL;
		size_t nout = 0;
		bool touched = false;

		for (size_t k = 0; k < set->n; k++) {
			int i = vw_facts_find_dev(f, set->addrs[k]);

			touched |= i >= 0 && x->in[i];
		}
		if (!touched)
			continue;
		touched_any = true;
		for (size_t k = 0; k < set->n; k++) {
			int i = vw_facts_find_dev(f, set->addrs[k]);

			if (i < 0)
				issue(u, "nvlink-missing", VW_SEV_WARN,
				      vw_xasprintf(_("%s belongs to the NVLink set but is not on this host (the saved NVLink state is older than the hardware?)."),
						   set->addrs[k]),
				      vw_xstrdup(_("Let the wizard read the NVLink topology again while the NVIDIA driver owns the GPUs.")));
			else if (!x->in[i])
				add_int(&out, &nout, i);
		}
		if (!nout)
			continue;
		u->nvlink_split = true;
		{
			struct vw_buf b = VW_BUF_INIT;

			addr_list(&b, f, out, nout);
			if (x->o && x->o->allow_split_nvlink) {
				for (size_t i = 0; i < nout; i++)
					add_int(&u->left_out, &u->nleft_out, out[i]);
				issue(u, "nvlink-split-allowed", VW_SEV_WARN,
				      vw_xasprintf(_("The NVLink set is split, as you chose: %s stay out of this VM. NVLink traffic bypasses PCIe and the IOMMU, so VFIO cannot isolate it; NVLink between the parts will not work, and without the NVSwitches the GPUs here may not link at all."),
						   b.data),
				      vw_xstrdup(_("Only do this with an NVSwitch fabric partitioned by NVIDIA's fabric manager (shared NVSwitch mode), or when NVLink is not needed.")));
			} else {
				issue(u, "nvlink-split", VW_SEV_BLOCKER,
				      vw_xasprintf(_("The NVLink set would be split: %s must go to the same VM but are kept out. NVLink traffic bypasses PCIe and the IOMMU, so VFIO cannot isolate it, and NVIDIA requires NVLink peers and their NVSwitches in the same VM."),
						   b.data),
				      vw_xstrdup(_("Give the whole NVLink set to this VM, or choose explicitly to split it (only for NVSwitch systems partitioned by the fabric manager).")));
			}
			vw_buf_done(&b);
		}
		free(out);
	}
	if (touched_any && nl && (nl->order_guessed || nl->source == VW_NVLINK_INFERRED))
		issue(u, "nvlink-guessed", VW_SEV_WARN,
		      vw_xstrdup(nl->source == VW_NVLINK_INFERRED
				 ? _("The NVLink sets were inferred from the NVSwitches, not read from nvidia-smi: all NVIDIA GPUs and NVSwitches are kept together.")
				 : _("nvidia-smi's GPU numbers were matched to PCI addresses by order: check that the NVLink set shown is right.")),
		      vw_xstrdup(_("Run the wizard while the NVIDIA driver owns the GPUs to read the NVLink topology.")));
}

/* What the host loses when d goes: its roles (facts, plus opts->host_storage),
 * each a blocker unless the user opted in. */
static unsigned member_roles(const struct expand *x, const struct vw_pci_dev *d)
{
	return d->host_role | (x->o && in_list(x->o->host_storage, d->addr) ? VW_HOST_STORAGE : 0);
}

static void role_issue(struct expand *x, const struct vw_pci_dev *d, unsigned role)
{
	const char *why = d->host_role_why && *d->host_role_why ? d->host_role_why : NULL;
	bool allowed;
	char *msg;

	switch (role) {
	case VW_HOST_STORAGE:
		allowed = x->o && x->o->allow_host_storage;
		msg = why ? vw_xasprintf(_("%s (%s) holds the host's own disks: %s. The host cannot run without them."),
					 d->addr, dev_label(d), why)
			  : vw_xasprintf(_("%s (%s) holds the host's own filesystems: the host cannot run without it."),
					 d->addr, dev_label(d));
		if (allowed)
			issue(x->u, "host-storage-allowed", VW_SEV_WARN, msg,
			      vw_xstrdup(_("You chose to give it away (allow_host_storage = true): make sure the host boots and runs from other disks.")));
		else
			issue(x->u, "host-storage", VW_SEV_BLOCKER, msg,
			      vw_xstrdup(_("Keep it with the host: choose another GPU, move the GPU to a slot in another IOMMU group, or use the ACS override. Only if the host truly runs from other disks, opt in with allow_host_storage = true.")));
		break;
	case VW_HOST_NETWORK:
		allowed = x->o && x->o->allow_host_network;
		msg = why ? vw_xasprintf(_("%s (%s) carries the host's network: %s. Given to the VM, the host loses that network (and an SSH session through it)."),
					 d->addr, dev_label(d), why)
			  : vw_xasprintf(_("%s (%s) carries the host's network: given to the VM, the host loses it."),
					 d->addr, dev_label(d));
		if (allowed)
			issue(x->u, "host-network-allowed", VW_SEV_WARN, msg,
			      vw_xstrdup(_("You chose to give it away (allow_host_network = true): make sure the host keeps another network connection, or a local console.")));
		else
			issue(x->u, "host-network", VW_SEV_BLOCKER, msg,
			      vw_xstrdup(_("Keep it with the host: choose another GPU, move a card to a slot in another IOMMU group, or use the ACS override. Only if the host has another way in, opt in with allow_host_network = true.")));
		break;
	default:
		allowed = x->o && x->o->allow_host_input;
		msg = why ? vw_xasprintf(_("%s (%s) is the USB controller of the host's only keyboard: %s. Given to the VM, the host has no keyboard."),
					 d->addr, dev_label(d), why)
			  : vw_xasprintf(_("%s (%s) is the USB controller of the host's only keyboard: given to the VM, the host has no keyboard."),
					 d->addr, dev_label(d));
		if (allowed)
			issue(x->u, "host-input-allowed", VW_SEV_WARN, msg,
			      vw_xstrdup(_("You chose to give it away (allow_host_input = true): reach the host over SSH, or plug a keyboard into another controller.")));
		else
			issue(x->u, "host-input", VW_SEV_BLOCKER, msg,
			      vw_xstrdup(_("Plug the host's keyboard into another USB controller, or reach the host over SSH; to give it away anyway, opt in with allow_host_input = true.")));
		break;
	}
}

static void host_issues(struct expand *x)
{
	const struct vw_facts *f = x->f;
	struct vw_unit *u = x->u;
	bool nv_unknown = false, nv_owned = false, no_group = false;

	for (size_t k = 0; k < u->n; k++) {
		const struct vw_unit_member *m = &u->m[k];
		const struct vw_pci_dev *d = &f->devs[m->dev];
		unsigned base = d->class_code >> 16, sub = d->class_code >> 8;
		unsigned roles = member_roles(x, d);
		const char *via = m->via >= 0 ? f->devs[m->via].addr : "";

		if (d->boot_vga == 1)
			issue(u, "boot-vga", VW_SEV_WARN,
			      vw_xasprintf(_("%s is the host's boot display: the host loses its console when it goes to the VM."), d->addr),
			      vw_xstrdup(_("Use another GPU or an integrated one for the host, or reach the host over SSH only.")));
		for (unsigned r = VW_HOST_STORAGE; r <= VW_HOST_INPUT; r <<= 1)
			if (roles & r)
				role_issue(x, d, r);
		if (d->group < 0)
			no_group = true;
		if (d->vendor == 0x10de && d->role == VW_ROLE_GPU &&
		    (!x->nl || x->nl->source == VW_NVLINK_NONE)) {
			nv_unknown = true;
			nv_owned |= !strcmp(d->driver, "nvidia");
		}
		/* A host role says more than the group-* warnings. */
		if (m->why != VW_UNIT_GROUP || roles)
			continue;
		if (sub == 0x0c03)
			issue(u, "group-usb", VW_SEV_WARN,
			      vw_xasprintf(_("The USB controller %s shares IOMMU group %d with %s and goes to the VM too: keyboards and disks on it leave the host."),
					   d->addr, d->group, via),
			      vw_xstrdup(_("Plug the host's keyboard and disks into another controller, or use the ACS override.")));
		else if (base == 0x02)
			issue(u, "group-network", VW_SEV_WARN,
			      vw_xasprintf(_("The network controller %s shares IOMMU group %d with %s and goes to the VM too: the host may lose its network (and this SSH session)."),
					   d->addr, d->group, via),
			      vw_xstrdup(_("Make sure the host keeps another network connection, or use the ACS override.")));
		else if (base == 0x01)
			issue(u, "group-storage", VW_SEV_WARN,
			      vw_xasprintf(_("The storage controller %s shares IOMMU group %d with %s and goes to the VM too: the host loses the disks on it."),
					   d->addr, d->group, via),
			      vw_xstrdup(_("Check that the host does not need those disks, or use the ACS override.")));
		else
			issue(u, "group-other", VW_SEV_INFO,
			      vw_xasprintf(_("%s (%s) shares IOMMU group %d with %s and goes to the VM too."),
					   d->addr, dev_label(d), d->group, via),
			      NULL);
	}
	if (no_group)
		issue(u, "no-group", VW_SEV_WARN,
		      vw_xstrdup(f->iommu.ngroups ? _("A device of the unit is in no IOMMU group: it cannot be passed through.")
					    : _("This host has no IOMMU groups: they exist only once the IOMMU is on, after a reboot.")),
		      vw_xstrdup(f->iommu.ngroups ? _("Turn the IOMMU on (see 'vfiowiz check').")
					    : _("The wizard's changes turn it on where 'vfiowiz check' says it can; the groups are shown after the reboot.")));
	if (nv_unknown)
		issue(u, "nvlink-unknown", VW_SEV_INFO,
		      vw_xstrdup(_("The NVLink peers of the NVIDIA GPU are unknown: nvidia-smi was not asked, or could not see the GPUs.")),
		      vw_xstrdup(nv_owned
				 ? _("The NVIDIA driver owns the GPU, but nvidia-smi gave no NVLink topology: if the GPU has NVLink peers, install nvidia-smi (the NVIDIA utilities) and run the wizard again.")
				 : _("If the GPU has NVLink peers, run the wizard while the NVIDIA driver owns the GPUs.")));
}

static void blocked_issues(struct expand *x)
{
	for (size_t i = 0; i < x->nblocked; i++) {
		const struct vw_pci_dev *d = &x->f->devs[x->blocked[i]];
		int via = x->blocked_via[i];

		if (via < 0)
			issue(x->u, "kept-out", VW_SEV_BLOCKER,
			      vw_xasprintf(_("%s is both chosen and kept out."), d->addr), NULL);
		else if (vw_dev_same_slot(d, &x->f->devs[via]))
			issue(x->u, "kept-out", VW_SEV_BLOCKER,
			      vw_xasprintf(_("%s is kept out, but it is a function of the same slot as %s: the functions of a slot go together."),
					   d->addr, x->f->devs[via].addr),
			      vw_xstrdup(_("Give the whole slot to the VM.")));
		else
			issue(x->u, "kept-out", VW_SEV_BLOCKER,
			      vw_xasprintf(_("%s is kept out, but it shares IOMMU group %d with %s: VFIO hands out whole groups."),
					   d->addr, d->group, x->f->devs[via].addr),
			      vw_xstrdup(_("Give the whole group to the VM, move a card to another slot, or use the ACS override.")));
	}
}

/* What vw_unit_binding() and the verify step read. */
static void derive(struct vw_unit *u, const struct vw_facts *f, const signed char *in)
{
	bool other_display = false;

	for (size_t k = 0; k < u->n; k++) {
		const struct vw_pci_dev *d = &f->devs[u->m[k].dev];

		u->nforced += u->m[k].why == VW_UNIT_GROUP;
		u->boot_display |= d->boot_vga == 1;
		u->host_roles |= d->host_role;
		u->no_group |= d->group < 0;
		if (d->group >= 0)
			add_int(&u->groups, &u->ngroups, d->group);
		for (size_t i = 0; i < f->ndevs; i++)
			if (!in[i] && f->devs[i].vendor == d->vendor && f->devs[i].device == d->device)
				u->ids_ambiguous = true;
	}
	if (u->ngroups > 1)
		qsort(u->groups, u->ngroups, sizeof(int), cmp_int);
	if (u->nbridges > 1)
		qsort(u->bridges, u->nbridges, sizeof(int), cmp_int);
	if (u->nleft_out > 1)
		qsort(u->left_out, u->nleft_out, sizeof(int), cmp_int);
	for (size_t i = 0; i < f->ndevs; i++)
		other_display |= vw_dev_is_display(&f->devs[i]) && !in[i];
	u->only_display = u->n && !other_display;
}

static void expand_idx(struct vw_unit *u, const struct vw_facts *f, const struct vw_nvlink *nl,
		       const int *idx, size_t n, const struct vw_unit_opts *opts)
{
	struct expand x = { .f = f, .nl = nl, .o = opts, .u = u };

	memset(u, 0, sizeof(*u));
	x.in = vw_xcalloc(f->ndevs ? f->ndevs : 1, 1);
	for (size_t i = 0; i < n; i++)
		if (idx[i] >= 0 && (size_t)idx[i] < f->ndevs && !vw_dev_is_bridge(&f->devs[idx[i]]))
			add(&x, idx[i], VW_UNIT_CHOSEN, -1);
	/* u->m grows while we walk it: every member's neighbourhood is
	 * visited once, so the loop ends at the fixed point. */
	for (size_t k = 0; k < u->n; k++)
		expand_one(&x, u->m[k].dev);
	blocked_issues(&x);
	nvlink_issues(&x);
	if (u->n > 1)
		qsort(u->m, u->n, sizeof(*u->m), cmp_member);
	host_issues(&x);
	derive(u, f, x.in);
	free(x.in);
	free(x.blocked);
	free(x.blocked_via);
}

int vw_unit_expand(const struct vw_facts *f, const struct vw_nvlink *nl,
		   const char *const *selected, size_t nsel, const struct vw_unit_opts *opts,
		   struct vw_unit *out, struct vw_err *err)
{
	int *idx;

	memset(out, 0, sizeof(*out));
	if (!nsel)
		return vw_err_set(err, -EINVAL, _("No device chosen."));
	idx = vw_xcalloc(nsel, sizeof(*idx));
	for (size_t i = 0; i < nsel; i++) {
		char addr[16];

		if (!selected[i] || vw_pci_addr_normalize(selected[i], addr) < 0) {
			free(idx);
			return vw_err_set(err, -EINVAL, _("\"%s\" is not a PCI address (want DDDD:BB:SS.F)."),
					  selected[i] ? selected[i] : "");
		}
		idx[i] = vw_facts_find_dev(f, addr);
		if (idx[i] < 0) {
			free(idx);
			return vw_err_set(err, -ENOENT, _("There is no PCI device %s on this host."), addr);
		}
		if (vw_dev_is_bridge(&f->devs[idx[i]])) {
			free(idx);
			return vw_err_set(err, -EINVAL, _("%s is a PCI bridge: bridges stay with the host."), addr);
		}
	}
	expand_idx(out, f, nl, idx, nsel, opts);
	free(idx);
	return 0;
}

void vw_unit_build_idx_nv(struct vw_unit *u, const struct vw_facts *f, const struct vw_nvlink *nl,
			  const int *idx, size_t n)
{
	expand_idx(u, f, nl, idx, n, NULL);
}

void vw_unit_build_idx(struct vw_unit *u, const struct vw_facts *f, const int *idx, size_t n)
{
	expand_idx(u, f, NULL, idx, n, NULL);
}

/* keep_out as function addresses: a slot stands for its functions. */
static const char **keep_out_addrs(const struct vw_facts *f, const struct vw_choices *c)
{
	const char **v = vw_xcalloc(c->nkeep_out + f->ndevs + 1, sizeof(char *));
	size_t k = 0;

	for (size_t i = 0; i < c->nkeep_out; i++) {
		const char *want = c->keep_out[i];
		size_t wl = strlen(want);

		if (strchr(want, '.')) {
			v[k++] = want;
			continue;
		}
		for (size_t d = 0; d < f->ndevs; d++)
			if (!strncmp(f->devs[d].addr, want, wl) && f->devs[d].addr[wl] == '.')
				v[k++] = f->devs[d].addr;
	}
	return v;
}

int vw_unit_build_choices(struct vw_unit *u, const struct vw_facts *f, const struct vw_nvlink *nl,
			  const struct vw_choices *c, struct vw_err *err)
{
	struct vw_unit_opts o = {
		.allow_split_nvlink = c->split_nvlink,
		.allow_host_storage = c->allow_host_storage,
		.allow_host_network = c->allow_host_network,
		.allow_host_input = c->allow_host_input,
	};
	const char **keep;
	int *idx = NULL;
	size_t n = 0;
	int r = vw_answers_devices(c, f, &idx, &n, err);

	if (r < 0) {
		memset(u, 0, sizeof(*u));
		return r;
	}
	keep = keep_out_addrs(f, c);
	o.keep_out = keep;
	expand_idx(u, f, nl, idx, n, &o);
	free(keep);
	free(idx);
	return 0;
}

int vw_unit_build(struct vw_unit *u, const struct vw_facts *f, const struct vw_choices *c,
		  struct vw_err *err)
{
	return vw_unit_build_choices(u, f, NULL, c, err);
}

void vw_unit_done(struct vw_unit *u)
{
	free(u->m);
	free(u->groups);
	free(u->bridges);
	free(u->left_out);
	vw_findings_done(&u->issues);
	memset(u, 0, sizeof(*u));
}

const struct vw_unit_member *vw_unit_find(const struct vw_unit *u, int dev)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->m[i].dev == dev)
			return &u->m[i];
	return NULL;
}

bool vw_unit_ok(const struct vw_unit *u)
{
	for (size_t i = 0; i < u->issues.n; i++)
		if (u->issues.v[i].sev == VW_SEV_BLOCKER)
			return false;
	return true;
}

char **vw_unit_addrs(const struct vw_unit *u, const struct vw_facts *f)
{
	char **v = vw_xcalloc(u->n + 1, sizeof(char *));

	for (size_t i = 0; i < u->n; i++)
		v[i] = vw_xstrdup(f->devs[u->m[i].dev].addr);
	return v;
}

enum vw_binding vw_unit_binding(const struct vw_unit *u, enum vw_binding choice)
{
	if (choice != VW_BIND_AUTO)
		return choice;
	return u->ids_ambiguous ? VW_BIND_ADDRESS : VW_BIND_IDS;
}

void vw_unit_ids(struct vw_buf *out, const struct vw_facts *f, const struct vw_unit *u)
{
	size_t start = out->len;

	for (size_t k = 0; k < u->n; k++) {
		const struct vw_pci_dev *d = &f->devs[u->m[k].dev];
		char id[16];

		snprintf(id, sizeof(id), "%04x:%04x", d->vendor, d->device);
		if (out->data && strstr(out->data + start, id))
			continue;
		if (out->len > start)
			vw_buf_addc(out, ',');
		vw_buf_adds(out, id);
	}
	if (!out->data)
		vw_buf_add(out, "", 0);
}

/* Module names, like kernel parameters, take '-' and '_' alike. */
static bool same_module(const char *a, const char *b)
{
	return vw_kparam_eq(a, b);
}

char **vw_unit_drivers(const struct vw_facts *f, const struct vw_unit *u)
{
	char **v = vw_xcalloc(u->n + 1, sizeof(char *));
	size_t n = 0;

	for (size_t k = 0; k < u->n; k++) {
		const char *drv = f->devs[u->m[k].dev].driver;
		bool dup = false;

		if (!*drv || same_module(drv, "vfio-pci") || same_module(drv, "pci-stub"))
			continue;
		for (size_t i = 0; i < n; i++)
			dup |= same_module(v[i], drv);
		if (!dup)
			v[n++] = vw_xstrdup(drv);
	}
	return v;
}

int vw_unit_blacklist_conflict(const struct vw_facts *f, const struct vw_unit *u, const char *module)
{
	for (size_t i = 0; i < f->ndevs; i++)
		if (!vw_unit_find(u, (int)i) && *f->devs[i].driver && same_module(f->devs[i].driver, module))
			return (int)i;
	return -1;
}

const char *vw_unit_why_name(enum vw_unit_why w)
{
	static const char *const names[] = {
		[VW_UNIT_CHOSEN] = "chosen", [VW_UNIT_FUNCTION] = "same-slot",
		[VW_UNIT_GROUP] = "iommu-group", [VW_UNIT_NVLINK_PEER] = "nvlink-peer",
		[VW_UNIT_NVSWITCH] = "nvswitch",
	};
	return (unsigned)w < VW_ARRAY_SIZE(names) ? names[w] : "chosen";
}

void vw_unit_why_text(struct vw_buf *out, const struct vw_facts *f, const struct vw_unit_member *m)
{
	const char *via = m->via >= 0 && (size_t)m->via < f->ndevs ? f->devs[m->via].addr : "?";

	switch (m->why) {
	case VW_UNIT_CHOSEN:
		vw_buf_adds(out, _("chosen"));
		break;
	case VW_UNIT_FUNCTION:
		vw_buf_printf(out, _("same slot as %s"), via);
		break;
	case VW_UNIT_GROUP:
		vw_buf_printf(out, _("IOMMU group %d, with %s"), f->devs[m->dev].group, via);
		break;
	case VW_UNIT_NVLINK_PEER:
		vw_buf_printf(out, _("NVLink peer of %s"), via);
		break;
	case VW_UNIT_NVSWITCH:
		vw_buf_printf(out, _("NVSwitch of the NVLink set of %s"), via);
		break;
	}
}
