/* SPDX-License-Identifier: GPL-2.0-or-later */
/* picks.c - edits of the choices made by the wizard's steps. */
#include "picks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
