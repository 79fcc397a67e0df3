/* picks.c - edits of the choices made by the wizard's steps. */
#include "picks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void slot_of(const struct vw_pci_dev *d, char *buf, size_t n)
{
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
