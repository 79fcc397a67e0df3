/* SPDX-License-Identifier: GPL-2.0-or-later */
/* handfacts.h - hand-made PCI facts for unit tests of the NVLink and unit
 * modules (no sysroot needed).  Header-only: include it in one test file. */
#ifndef VW_HANDFACTS_H
#define VW_HANDFACTS_H

#include "facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append a function: addr "DDDD:BB:SS.F", class 24-bit, group -1 for none. */
static inline struct vw_pci_dev *hf_add(struct vw_facts *f, const char *addr, unsigned vendor,
					unsigned device, unsigned cls, const char *driver, int group)
{
	struct vw_pci_dev *d;

	f->devs = vw_xreallocarray(f->devs, f->ndevs + 1, sizeof(*f->devs));
	d = &f->devs[f->ndevs++];
	memset(d, 0, sizeof(*d));
	snprintf(d->addr, sizeof(d->addr), "%s", addr);
	if (sscanf(addr, "%x:%x:%x.%u", &d->domain, &d->bus, &d->dev, &d->func) != 4)
		abort();
	d->vendor = vendor;
	d->device = device;
	d->class_code = cls;
	d->driver = vw_xstrdup(driver);
	d->vendor_name = vw_xstrdup("");
	d->device_name = vw_xstrdup("");
	d->reset_method = vw_xstrdup("");
	d->note = vw_xstrdup("");
	d->group = group;
	d->parent = -1;
	d->gpu = -1;
	d->numa_node = -1;
	d->boot_vga = -1;
	d->pcie_type = VW_PCIE_NONE;
	d->role = vw_dev_is_display(d) ? VW_ROLE_GPU : vw_dev_is_nvswitch(d) ? VW_ROLE_NVSWITCH
		: vw_dev_is_bridge(d) ? VW_ROLE_BRIDGE : VW_ROLE_OTHER;
	if (group >= 0 && f->iommu.ngroups <= (size_t)group)
		f->iommu.ngroups = (size_t)group + 1;	/* counted; f->groups stays empty */
	return d;
}

/* Companions: the other functions of a GPU's slot (as the PCI probe does). */
static inline void hf_roles(struct vw_facts *f)
{
	for (size_t i = 0; i < f->ndevs; i++)
		for (size_t j = 0; j < f->ndevs; j++)
			if (f->devs[i].role == VW_ROLE_OTHER && f->devs[j].role == VW_ROLE_GPU &&
			    vw_dev_same_slot(&f->devs[i], &f->devs[j])) {
				f->devs[i].role = VW_ROLE_COMPANION;
				f->devs[i].gpu = (int)j;
			}
}

static inline void hf_free(struct vw_facts *f)
{
	for (size_t i = 0; i < f->ndevs; i++) {
		free(f->devs[i].driver);
		free(f->devs[i].vendor_name);
		free(f->devs[i].device_name);
		free(f->devs[i].reset_method);
		free(f->devs[i].note);
	}
	free(f->devs);
	memset(f, 0, sizeof(*f));
}

#endif
