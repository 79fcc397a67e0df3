/* SPDX-License-Identifier: GPL-2.0-or-later */
/* acs.h - the ACS override: parse it, and predict the IOMMU groups the kernel
 * would make with it (docs/formats.md section 3).
 *
 * The prediction replays the kernel's pci_device_group(): DMA aliases through
 * conventional bridges, the walk up while the path lacks ACS isolation, and
 * the grouping of multifunction slots without ACS.  Vendor quirks are not
 * modelled, so the model is first checked against the groups the kernel
 * really made (model_matches); the front end says "estimate" when it does
 * not match. */
#ifndef VW_ACS_H
#define VW_ACS_H

#include "facts.h"

#define VW_ACS_MAX_IDS 15	/* the patch accepts at most 15 id: tokens */

struct vw_acs_override {
	bool downstream;	/* root ports and switch downstream ports */
	bool multifunction;	/* multifunction endpoints */
	size_t nids;
	unsigned ids[VW_ACS_MAX_IDS][2];	/* vendor, device */
};

/* Parse "downstream,multifunction,id:10de:2204" (the kernel parameter's
 * value; "none" or "" is no override).  Returns 0 or -EINVAL with err. */
int vw_acs_parse(const char *spec, struct vw_acs_override *ov, struct vw_err *err);
/* The kernel parameter's value for ov ("" for none). */
void vw_acs_format(const struct vw_acs_override *ov, struct vw_buf *out);
bool vw_acs_is_none(const struct vw_acs_override *ov);

struct vw_acs_preview {
	int *group;		/* per device (facts order): predicted group, 0..ngroups-1 */
	size_t ngroups;
	bool known;		/* false: ACS registers unreadable (run as root) */
	bool model_matches;	/* the model reproduces today's kernel groups */
};

/* Predict the groups with override ov (NULL: none).  Fills *out (free with
 * vw_acs_preview_done).  Devices behind no IOMMU still get a prediction. */
void vw_acs_simulate(const struct vw_facts *f, const struct vw_acs_override *ov,
		     struct vw_acs_preview *out);
void vw_acs_preview_done(struct vw_acs_preview *p);

/* Whether device i has ACS isolation under ov (the kernel's
 * pci_acs_enabled() with the flags the IOMMU code asks for). */
bool vw_acs_enabled(const struct vw_facts *f, size_t i, const struct vw_acs_override *ov);

#endif
