/* SPDX-License-Identifier: GPL-2.0-or-later */
/* picks.c - edits of the choices made by the wizard's steps. */
#include "picks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmplan.h"

/* What the wizard writes in devices for d: its slot, or for an SR-IOV VF
 * (a device of its own, core/facts.h) its address. */
static void slot_of(const struct vw_pci_dev *d, char *buf, size_t n)
{
	if (d->vf)
		snprintf(buf, n, "%s", d->addr);
	else
		snprintf(buf, n, "%04x:%02x:%02x", d->domain, d->bus, d->dev);
}

static bool names_slot(const char *entry, const char *slot)
{
	size_t n = strlen(slot);

	return !strncmp(entry, slot, n) && (entry[n] == '\0' || entry[n] == '.');
}

bool vw_choices_has_dev(const struct vw_choices *c, const struct vw_pci_dev *d)
{
	char slot[16];

	slot_of(d, slot, sizeof(slot));
	for (size_t i = 0; i < c->ndevices; i++)
		if (!strcmp(c->devices[i], d->addr) || !strcmp(c->devices[i], slot))
			return true;
	return false;
}

void vw_choices_set_slot(struct vw_choices *c, const struct vw_pci_dev *d, bool on)
{
	char slot[16];
	size_t k = 0;

	slot_of(d, slot, sizeof(slot));
	for (size_t i = 0; i < c->ndevices; i++) {
		if (names_slot(c->devices[i], slot))
			free(c->devices[i]);
		else
			c->devices[k++] = c->devices[i];
	}
	c->ndevices = k;
	c->devices[k] = NULL;
	if (on) {
		c->devices = vw_xreallocarray(c->devices, c->ndevices + 2, sizeof(char *));
		c->devices[c->ndevices++] = vw_xstrdup(slot);
		c->devices[c->ndevices] = NULL;
	}
}

static void add_id(struct vw_acs_override *ov, unsigned v, unsigned d)
{
	for (size_t i = 0; i < ov->nids; i++)
		if (ov->ids[i][0] == v && ov->ids[i][1] == d)
			return;
	if (ov->nids < VW_ACS_MAX_IDS) {
		ov->ids[ov->nids][0] = v;
		ov->ids[ov->nids][1] = d;
		ov->nids++;
	}
}

void vw_picks_acs_ids(const struct vw_facts *f, const struct vw_unit *u, struct vw_acs_override *ov)
{
	ov->nids = 0;
	for (size_t k = 0; k < u->n; k++) {
		const struct vw_pci_dev *d = &f->devs[u->m[k].dev];

		if (u->m[k].why == VW_UNIT_GROUP)
			continue;
		add_id(ov, d->vendor, d->device);
		for (int p = d->parent, hops = 0; p >= 0 && (size_t)p < f->ndevs && hops < 64;
		     p = f->devs[p].parent, hops++)
			if (!f->devs[p].has_acs)
				add_id(ov, f->devs[p].vendor, f->devs[p].device);
	}
}

bool vw_picks_gpu_slot(const struct vw_facts *f, const struct vw_pci_dev *d)
{
	for (size_t i = 0; i < f->ndevs; i++)
		if (vw_dev_is_display(&f->devs[i]) && vw_dev_same_slot(&f->devs[i], d) &&
		    f->devs[i].domain == d->domain)
			return true;
	return false;
}

bool vw_choices_keep_nvlink(struct vw_choices *c, const struct vw_nvlink *nl)
{
	char *all, *save = NULL;
	size_t n = 0;

	if (c->nvlink_known || (nl->source != VW_NVLINK_PROBED && nl->source != VW_NVLINK_RECORDED))
		return false;
	all = vw_nvlink_to_string(nl);
	vw_strv_free(c->nvlink);
	c->nvlink = vw_xcalloc(nl->nsets + 1, sizeof(char *));
	for (char *set = strtok_r(all, " ", &save); set && n < nl->nsets; set = strtok_r(NULL, " ", &save))
		c->nvlink[n++] = vw_xstrdup(set);
	c->nnvlink = n;
	c->nvlink_known = true;
	free(all);
	return true;
}

static bool is_slot_entry(const char *e)
{
	return !strchr(e, '.');
}

bool vw_choices_has_gpu(const struct vw_choices *c, const struct vw_pci_dev *d)
{
	char slot[16];

	slot_of(d, slot, sizeof(slot));
	for (size_t i = 0; i < c->ndevices; i++)
		if (!strcmp(c->devices[i], slot))
			return true;
	return false;
}

void vw_choices_gpu_unit(struct vw_unit *u, const struct vw_choices *c, const struct vw_facts *f,
			 const struct vw_nvlink *nl)
{
	int *idx = vw_xcalloc(f->ndevs + 1, sizeof(int));
	size_t n = 0;

	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[i];

		if (!vw_dev_is_bridge(d) && vw_choices_has_gpu(c, d))
			idx[n++] = (int)i;
	}
	vw_unit_build_idx_nv(u, f, nl, idx, n);
	free(idx);
}

static bool drop_shares(struct vw_choices *c, const struct vw_facts *f, int card);

static bool unit_has_driver(char *const *drivers, const char *mod)
{
	for (size_t i = 0; drivers && drivers[i]; i++)
		if (!strcmp(drivers[i], mod))
			return true;
	return false;
}

bool vw_choices_tidy(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl)
{
	struct vw_unit u;
	char **drivers;
	bool changed = false;
	size_t k = 0;

	/* A card ticked whole is shared no more (its VFs, vGPUs, MIG). */
	changed |= drop_shares(c, f, -1);
	vw_choices_gpu_unit(&u, c, f, nl);
	for (size_t i = 0; i < c->ndevices; i++) {
		int d = is_slot_entry(c->devices[i]) ? 0 : vw_facts_find_dev(f, c->devices[i]);

		if (!is_slot_entry(c->devices[i]) && (d < 0 || !vw_unit_find(&u, d))) {
			free(c->devices[i]);
			changed = true;
		} else {
			c->devices[k++] = c->devices[i];
		}
	}
	c->ndevices = k;
	if (c->devices)
		c->devices[k] = NULL;
	if (!u.nforced && (c->acs_ids || c->acs.downstream || c->acs.multifunction)) {
		c->acs_ids = c->acs.downstream = c->acs.multifunction = false;
		changed = true;
	}
	if (!u.boot_display && !u.only_display && c->allow_host_display) {
		c->allow_host_display = false;
		changed = true;
	}
	/* The opt-ins to give away what the host needs belong to the devices
	   that needed them. */
	if (!(u.host_roles & VW_HOST_STORAGE) && c->allow_host_storage) {
		c->allow_host_storage = false;
		changed = true;
	}
	if (!(u.host_roles & VW_HOST_NETWORK) && c->allow_host_network) {
		c->allow_host_network = false;
		changed = true;
	}
	if (!(u.host_roles & VW_HOST_INPUT) && c->allow_host_input) {
		c->allow_host_input = false;
		changed = true;
	}
	drivers = vw_unit_drivers(f, &u);
	k = 0;
	for (size_t i = 0; i < c->nblacklist; i++) {
		if (unit_has_driver(drivers, c->blacklist[i])) {
			c->blacklist[k++] = c->blacklist[i];
		} else {
			free(c->blacklist[i]);
			changed = true;
		}
	}
	c->nblacklist = k;
	if (c->blacklist)
		c->blacklist[k] = NULL;
	vw_strv_free(drivers);
	vw_unit_done(&u);
	return changed;
}

void vw_choices_set_gpu(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl,
			const struct vw_pci_dev *d, bool on)
{
	/* Whole or not at all: what it was shared for goes. */
	vw_choices_unshare(c, f, (int)(d - f->devs));
	vw_choices_set_slot(c, d, on);
	vw_choices_tidy(c, f, nl);
}

static void set_addr(struct vw_choices *c, const char *addr, bool on)
{
	size_t k = 0;

	for (size_t i = 0; i < c->ndevices; i++) {
		if (!strcmp(c->devices[i], addr))
			free(c->devices[i]);
		else
			c->devices[k++] = c->devices[i];
	}
	c->ndevices = k;
	if (c->devices)
		c->devices[k] = NULL;
	if (on) {
		c->devices = vw_xreallocarray(c->devices, c->ndevices + 2, sizeof(char *));
		c->devices[c->ndevices++] = vw_xstrdup(addr);
		c->devices[c->ndevices] = NULL;
	}
}

void vw_choices_give_group(struct vw_choices *c, const struct vw_facts *f, const struct vw_unit *u,
			   bool on)
{
	for (size_t k = 0; k < u->n; k++)
		if (u->m[k].why == VW_UNIT_GROUP)
			set_addr(c, f->devs[u->m[k].dev].addr, on);
}

bool vw_choices_drop_gone(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl,
			  char ***gone)
{
	size_t k = 0, ngone = 0;

	*gone = NULL;
	for (size_t i = 0; i < c->ndevices; i++) {
		bool gpu = !is_slot_entry(c->devices[i]);	/* VFs, group members: tidy's */

		for (size_t j = 0; !gpu && j < f->ndevs; j++) {
			char slot[16];

			slot_of(&f->devs[j], slot, sizeof(slot));
			gpu = vw_dev_is_display(&f->devs[j]) && !strcmp(slot, c->devices[i]);
		}
		if (gpu) {
			c->devices[k++] = c->devices[i];
			continue;
		}
		*gone = vw_xreallocarray(*gone, ngone + 2, sizeof(char *));
		(*gone)[ngone++] = c->devices[i];
		(*gone)[ngone] = NULL;
	}
	c->ndevices = k;
	if (c->devices)
		c->devices[k] = NULL;
	if (ngone)
		vw_choices_tidy(c, f, nl);
	return ngone > 0;
}

bool vw_choices_adopt_gpus(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl)
{
	struct vw_unit u;
	bool changed = false;

	vw_choices_gpu_unit(&u, c, f, nl);
	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[i];
		const struct vw_unit_member *m = vw_unit_find(&u, (int)i);

		if (!vw_dev_is_display(d) || vw_choices_has_gpu(c, d) || !vw_choices_has_dev(c, d))
			continue;
		if (m && m->why != VW_UNIT_CHOSEN)
			continue;	/* given along for a ticked card's group */
		vw_choices_set_slot(c, d, true);
		changed = true;
	}
	vw_unit_done(&u);
	return changed;
}

/* ---- sharing one card ----------------------------------------------------- */

int vw_picks_card(const struct vw_facts *f, int dev)
{
	if (dev < 0 || (size_t)dev >= f->ndevs)
		return -1;
	return f->devs[dev].vf ? f->devs[dev].physfn : dev;
}

static struct vw_offer_type *offer_type(struct vw_offer *o, const char *id, bool vgpu)
{
	struct vw_offer_type *t;

	for (size_t i = 0; i < o->ntypes; i++)
		if (o->types[i].vgpu == vgpu && !strcmp(o->types[i].id, id))
			return &o->types[i];
	o->types = vw_xreallocarray(o->types, o->ntypes + 1, sizeof(*o->types));
	t = &o->types[o->ntypes++];
	memset(t, 0, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "%s", id);
	snprintf(t->name, sizeof(t->name), "%s", id);
	t->description = "";
	t->vgpu = vgpu;
	return t;
}

/* The mdev types of one parent, free and in use. */
static void offer_parent(struct vw_offer *o, const struct vw_facts *f, int di)
{
	const struct vw_pci_dev *d = &f->devs[di];

	for (size_t k = 0; k < d->nmdev_types; k++) {
		const struct vw_mdev_type *mt = &d->mdev_types[k];
		struct vw_offer_type *t = offer_type(o, mt->id, false);

		if (*mt->name)
			snprintf(t->name, sizeof(t->name), "%s", mt->name);
		if (mt->description)
			t->description = mt->description;
		if (mt->available > 0) {
			t->free += (int)mt->available;
			t->total += (int)mt->available;
		}
		for (size_t m = 0; m < f->nmdevs; m++)
			t->total += f->mdevs[m].parent == di && !strcmp(f->mdevs[m].type, mt->id);
	}
	for (size_t m = 0; m < f->nmdevs; m++)
		o->mdevs_now += f->mdevs[m].parent == di;
	/* NVIDIA's vendor-specific model: a VF holds one vGPU at a time. */
	for (size_t k = 0; d->vgpu_types && d->vgpu_types[k]; k++) {
		const char *line = d->vgpu_types[k], *sp = strchr(line, ' ');
		char id[72];
		struct vw_offer_type *t;

		if (!sp || (size_t)(sp - line) >= sizeof(id))
			continue;
		memcpy(id, line, (size_t)(sp - line));
		id[sp - line] = '\0';
		t = offer_type(o, id, true);
		snprintf(t->name, sizeof(t->name), "%s", sp + 1);
		t->total++;
		t->free += !*d->vgpu_current;
	}
}

void vw_offer_build(struct vw_offer *o, const struct vw_facts *f, const struct vw_mig *m, int dev)
{
	const struct vw_pci_dev *d = &f->devs[dev];

	memset(o, 0, sizeof(*o));
	o->dev = dev;
	o->sriov_total = d->sriov_total;
	o->sriov_num = d->sriov_num;
	/* NVIDIA's VFs carry vGPU types; a VF of its own, bound to vfio-pci,
	   is nothing a guest driver can use. */
	o->vf_model = d->vendor == 0x10de;
	offer_parent(o, f, dev);
	for (size_t k = 0; k < d->nvfs; k++) {
		const struct vw_pci_dev *vf = &f->devs[d->vfs[k]];

		/* vfio-pci too: the plan refuses the PF while a VF has a driver
		   (sriov_plan.c check_pfs), a VM may hold it */
		o->vfs_used += *vf->driver != 0;
		offer_parent(o, f, d->vfs[k]);
	}
	o->mig = m ? vw_mig_gpu_of(m, dev) : NULL;
	if (o->mig && o->mig->current != -1) {
		o->profiles = vw_xcalloc(m->nprofiles + 1, sizeof(size_t));
		for (size_t i = 0; i < m->nprofiles; i++)
			if (m->profiles[i].gpu == o->mig->index)
				o->profiles[o->nprofiles++] = i;
	}
	if (o->mig && o->mig->current != 1 && o->mig->pending != 1)
		o->mig = NULL;	/* no MIG mode: nothing to offer */
}

void vw_offer_done(struct vw_offer *o)
{
	free(o->types);
	free(o->profiles);
	memset(o, 0, sizeof(*o));
}

bool vw_offer_shareable(const struct vw_offer *o)
{
	return (o->sriov_total > 0 && !o->vf_model) || o->ntypes || o->mig;
}

bool vw_offer_whole_ok(const struct vw_offer *o)
{
	return !o->vfs_used && !o->mdevs_now;
}

int vw_offer_mig_type(const struct vw_offer *o, const char *profile)
{
	int first = -1;
	char on[32];

	for (size_t i = 0; i < o->ntypes; i++) {
		if (!vw_mig_profile_of_type(o->types[i].name, on) || strcmp(on, profile))
			continue;
		if (o->types[i].free > 0)
			return (int)i;
		/* None free now: the instance the mig key makes at boot is. */
		if (first < 0)
			first = (int)i;
	}
	return first;
}

/* The card an element "ADDR=..." of a sharing key belongs to, -1 unknown. */
static int element_card(const struct vw_facts *f, const char *s)
{
	char addr[16];
	const char *rest;
	int n;

	if (vw_mdev_split(s, addr, &rest) || vw_sriov_split(s, addr, &n) || vw_mig_split(s, addr, &rest))
		return vw_picks_card(f, vw_facts_find_dev(f, addr));
	return -1;
}

/* Drop the elements of v whose card is card (-1: whose card is ticked
 * whole); with vfs, only VF entries count (devices).  Decided before any
 * goes: with vfs, v is c->devices, which vw_choices_has_gpu reads. */
static bool drop_elements(char **v, size_t *n, const struct vw_choices *c, const struct vw_facts *f,
			  int card, bool vfs)
{
	bool *drop = vw_xcalloc(*n + 1, sizeof(bool)), changed = false;
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		int d = vfs ? vw_facts_find_dev(f, v[i]) : -1;
		int owner = vfs ? (d >= 0 && f->devs[d].vf ? f->devs[d].physfn : -1) : element_card(f, v[i]);

		drop[i] = owner >= 0 && (card >= 0 ? owner == card : vw_choices_has_gpu(c, &f->devs[owner]));
	}
	for (size_t i = 0; i < *n; i++) {
		if (drop[i]) {
			free(v[i]);
			changed = true;
		} else {
			v[k++] = v[i];
		}
	}
	*n = k;
	if (v)
		v[k] = NULL;
	free(drop);
	return changed;
}

static bool drop_shares(struct vw_choices *c, const struct vw_facts *f, int card)
{
	bool changed = false;

	changed |= drop_elements(c->sriov, &c->nsriov, c, f, card, false);
	changed |= drop_elements(c->mdevs, &c->nmdevs, c, f, card, false);
	changed |= drop_elements(c->vgpus, &c->nvgpus, c, f, card, false);
	changed |= drop_elements(c->migs, &c->nmigs, c, f, card, false);
	changed |= drop_elements(c->devices, &c->ndevices, c, f, card, true);
	return changed;
}

static bool has_element(char *const *v, size_t n, const struct vw_facts *f, int card, bool vfs)
{
	for (size_t i = 0; i < n; i++) {
		int d = vfs ? vw_facts_find_dev(f, v[i]) : -1;

		if (vfs ? d >= 0 && f->devs[d].vf && f->devs[d].physfn == card : element_card(f, v[i]) == card)
			return true;
	}
	return false;
}

bool vw_choices_shared(const struct vw_choices *c, const struct vw_facts *f, int dev)
{
	int card = vw_picks_card(f, dev);

	return card >= 0 && (has_element(c->sriov, c->nsriov, f, card, false) ||
			     has_element(c->mdevs, c->nmdevs, f, card, false) ||
			     has_element(c->vgpus, c->nvgpus, f, card, false) ||
			     has_element(c->migs, c->nmigs, f, card, false) ||
			     has_element(c->devices, c->ndevices, f, card, true));
}

bool vw_choices_unshare(struct vw_choices *c, const struct vw_facts *f, int dev)
{
	int card = vw_picks_card(f, dev);

	return card >= 0 && drop_shares(c, f, card);
}

static void push(char ***v, size_t *n, char *s)
{
	*v = vw_xreallocarray(*v, *n + 2, sizeof(char *));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

/* The card goes shared: neither whole nor shared another way. */
static void share_reset(struct vw_choices *c, const struct vw_facts *f, const struct vw_offer *o)
{
	vw_choices_set_slot(c, &f->devs[o->dev], false);
	vw_choices_unshare(c, f, o->dev);
}

int vw_choices_share_vfs(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl,
			 const struct vw_offer *o, int count)
{
	const struct vw_pci_dev *pf = &f->devs[o->dev];

	if (count < 1 || count > o->sriov_total)
		return -ENOSPC;
	share_reset(c, f, o);
	push(&c->sriov, &c->nsriov, vw_xasprintf("%s=%d", pf->addr, count));
	/* The VM gets the first VF of the count that exists now; none exists
	   yet: the plan makes them, and a later run gives one. */
	for (size_t k = 0; k < pf->nvfs; k++)
		if (f->devs[pf->vfs[k]].vf_index < count) {
			push(&c->devices, &c->ndevices, vw_xstrdup(f->devs[pf->vfs[k]].addr));
			break;
		}
	vw_choices_tidy(c, f, nl);
	return 0;
}

/* Whether a mediated device exists on function di already. */
static bool mdevs_on(const struct vw_facts *f, int di)
{
	for (size_t m = 0; m < f->nmdevs; m++)
		if (f->mdevs[m].parent == di)
			return true;
	return false;
}

/* Whether an mdev of type on function di is the one an earlier apply made
 * for this element: the UUID the plan gives c->mdevs[k] (vw_mdev_uuid). */
static bool ours_on(const struct vw_choices *c, const struct vw_facts *f, size_t k, int di, const char *type)
{
	char uuid[37];

	vw_mdev_uuid(c, k, uuid);
	for (size_t m = 0; m < f->nmdevs; m++)
		if (f->mdevs[m].parent == di && !strcmp(f->mdevs[m].type, type) && !strcmp(f->mdevs[m].uuid, uuid))
			return true;
	return false;
}

/* Add one instance of mdev type t on the parent that holds ours already
 * (a run after an apply plans no change), else on the first with room. */
static int add_type(struct vw_choices *c, const struct vw_facts *f, const struct vw_offer *o,
		    const struct vw_offer_type *t, bool mig_backed)
{
	const struct vw_pci_dev *pf = &f->devs[o->dev];

	for (size_t k = 0; k <= pf->nvfs && !t->vgpu; k++) {
		int di = k == 0 ? o->dev : pf->vfs[k - 1];

		push(&c->mdevs, &c->nmdevs, vw_xasprintf("%s=%s", f->devs[di].addr, t->id));
		if (ours_on(c, f, c->nmdevs - 1, di, t->id))
			return 0;
		free(c->mdevs[--c->nmdevs]);
		c->mdevs[c->nmdevs] = NULL;
	}
	for (size_t k = 0; k <= pf->nvfs; k++) {
		int di = k == 0 ? o->dev : pf->vfs[k - 1];
		const struct vw_pci_dev *d = &f->devs[di];

		if (t->vgpu) {
			size_t len = strlen(t->id);

			if (*d->vgpu_current)
				continue;
			for (size_t j = 0; d->vgpu_types && d->vgpu_types[j]; j++)
				if (!strncmp(d->vgpu_types[j], t->id, len) && d->vgpu_types[j][len] == ' ') {
					push(&c->vgpus, &c->nvgpus, vw_xasprintf("%s=%s", d->addr, t->id));
					return 0;
				}
			continue;
		}
		for (size_t j = 0; j < d->nmdev_types; j++)
			/* A MIG-backed type has room on a parent without an mdev
			 * once the mig key's instance exists (answers.c mig_room). */
			if (!strcmp(d->mdev_types[j].id, t->id) &&
			    (d->mdev_types[j].available > 0 || (mig_backed && !mdevs_on(f, di)))) {
				push(&c->mdevs, &c->nmdevs, vw_xasprintf("%s=%s", d->addr, t->id));
				return 0;
			}
	}
	return -ENOSPC;
}

int vw_choices_share_type(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl,
			  const struct vw_offer *o, size_t type)
{
	if (type >= o->ntypes || o->types[type].free <= 0)
		return -ENOSPC;
	share_reset(c, f, o);
	add_type(c, f, o, &o->types[type], false);
	vw_choices_tidy(c, f, nl);
	return 0;
}

int vw_choices_share_mig(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl,
			 const struct vw_offer *o, const struct vw_mig *m, size_t profile)
{
	const struct vw_mig_profile *p;
	int t;

	if (!o->mig || o->mig->current != 1 || profile >= o->nprofiles)
		return -ENOSPC;
	p = &m->profiles[o->profiles[profile]];
	if (p->free <= 0)
		return -ENOSPC;
	share_reset(c, f, o);
	push(&c->migs, &c->nmigs, vw_xasprintf("%s=%s", f->devs[o->dev].addr, p->name));
	t = vw_offer_mig_type(o, p->name);
	if (t >= 0)
		add_type(c, f, o, &o->types[t], true);
	vw_choices_tidy(c, f, nl);
	return 0;
}
