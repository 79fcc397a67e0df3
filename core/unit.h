/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit.h - the assignment unit: what must go to the VM with a chosen GPU.
 *
 * The chosen devices expand, to a fixed point, to:
 *  - every function of their slot (HDMI audio, USB-C xHCI, UCSI, ...);
 *  - every NVLink peer and the NVSwitches of their NVLink set (nvlink.h):
 *    NVLink traffic bypasses PCIe and the IOMMU, so VFIO cannot isolate it,
 *    and NVIDIA requires NVLink peers in the same VM (docs/formats.md section 9);
 *  - every member of their IOMMU groups (VFIO hands out whole groups).
 * PCI bridges are never part of a unit: a group's bridges stay with the
 * host (vfio-pci does not need them; binding them is refused).
 *
 * Problems become issues in the result (struct vw_findings: a stable code,
 * a severity, a translated message and remedy); only bad input (an unknown
 * address, a bridge chosen) makes vw_unit_expand() fail.  Codes:
 *  blocker  nvlink-split      an NVLink peer or NVSwitch is kept out without
 *                             the explicit choice (opts.allow_split_nvlink)
 *           kept-out          a same-slot function or group member is kept out
 *           host-storage      a member holds the host's disks (facts.h
 *                             VW_HOST_STORAGE, or opts.host_storage), without
 *                             opts.allow_host_storage
 *           host-network      a member carries the default route or the SSH
 *                             session, without opts.allow_host_network
 *           host-input        a member is the USB controller of the only
 *                             keyboard, without opts.allow_host_input
 *  warning  nvlink-split-allowed  the set is split by the user's choice
 *           host-storage-allowed, host-network-allowed, host-input-allowed
 *                             the same, given away by the explicit opt-in
 *           boot-vga          the host's boot display is in the unit
 *           group-usb, group-network, group-storage
 *                             a host USB/network/storage controller comes
 *                             along through an IOMMU group
 *           no-group          a member is in no IOMMU group (IOMMU off?)
 *           nvlink-guessed    NVLink sets were inferred or mapped by order
 *           nvlink-missing    an NVLink set member is not on this host
 *  info     group-other       another endpoint comes along through a group
 *           nvlink-unknown    an NVIDIA GPU whose NVLink peers are unknown
 */
#ifndef VW_UNIT_H
#define VW_UNIT_H

#include "answers.h"
#include "facts.h"
#include "findings.h"
#include "nvlink.h"

/* Why a function is in the unit. */
enum vw_unit_why {
	VW_UNIT_CHOSEN,		/* the user picked it */
	VW_UNIT_FUNCTION,	/* another function of a member's slot */
	VW_UNIT_GROUP,		/* shares an IOMMU group with a member */
	VW_UNIT_NVLINK_PEER,	/* a GPU of a member's NVLink set */
	VW_UNIT_NVSWITCH,	/* an NVSwitch of a member's NVLink set */
};

struct vw_unit_member {
	int dev;			/* index into facts->devs */
	enum vw_unit_why why;
	int via;			/* the member that brought it in (devs index), -1 when chosen */
};

struct vw_unit {
	struct vw_unit_member *m;	/* n members, in address order */
	size_t n;
	int *groups;			/* IOMMU groups of the members, sorted, each once */
	size_t ngroups;
	size_t nforced;			/* members that came only through a group */
	bool boot_display;		/* the host's boot display is a member */
	bool no_group;			/* a member is in no IOMMU group */
	bool ids_ambiguous;		/* a non-member has the ids of a member:
					   binding by ids would take it too */
	bool only_display;		/* the unit holds every display device */
	unsigned host_roles;		/* enum vw_host_role bits of the members (facts) */

	int *bridges;			/* bridges of the members' groups, left with the host */
	size_t nbridges;
	int *left_out;			/* NVLink peers/switches left out (split allowed) */
	size_t nleft_out;
	bool nvlink_split;		/* an NVLink set is only partly in the unit */
	struct vw_findings issues;	/* see the codes above */
};

struct vw_unit_opts {
	/* The user's explicit, explained choice to split NVLink sets: NVLink
	 * peers and NVSwitches are then not pulled in; only the chosen GPUs
	 * of a set go (warning nvlink-split-allowed). */
	bool allow_split_nvlink;
	/* Addresses that must stay out of this VM (kept by the host, or
	 * given to another VM); NULL-terminated, or NULL. */
	const char *const *keep_out;
	/* PCI addresses of more controllers holding host filesystems
	 * (vw_storage_host_controllers()), besides the facts' own
	 * VW_HOST_STORAGE; NULL-terminated, or NULL. */
	const char *const *host_storage;
	/* The explicit opt-ins to give away what the host needs (the answers'
	 * allow_host_storage, ...): the blockers become warnings. */
	bool allow_host_storage, allow_host_network, allow_host_input;
};

/* Expand the chosen addresses (nsel of them) into *out (zeroed first; free
 * with vw_unit_done() in every case).  nl may be NULL (NVLink unknown).
 * opts may be NULL (defaults).  Returns 0 (look at out->issues), -ENOENT for
 * an address that is not on the host, -EINVAL for a malformed address, a
 * bridge, or no address at all; err is set. */
int vw_unit_expand(const struct vw_facts *f, const struct vw_nvlink *nl,
		   const char *const *selected, size_t nsel, const struct vw_unit_opts *opts,
		   struct vw_unit *out, struct vw_err *err);

/* The unit of facts indexes idx[] (n of them; out-of-range indexes and
 * bridges are skipped), with default options; nl may be NULL. */
void vw_unit_build_idx(struct vw_unit *u, const struct vw_facts *f, const int *idx, size_t n);
void vw_unit_build_idx_nv(struct vw_unit *u, const struct vw_facts *f, const struct vw_nvlink *nl,
			  const int *idx, size_t n);
/* The unit of the choices' devices (vw_answers_devices()) with the NVLink
 * sets nl (may be NULL: unknown) and the choices' options: split_nvlink
 * (allow_split_nvlink), keep_out (a slot stands for its functions) and
 * allow_host_storage/network/input.
 * Returns 0 or -ENODEV with err set (u is then empty but initialised). */
int vw_unit_build_choices(struct vw_unit *u, const struct vw_facts *f, const struct vw_nvlink *nl,
			  const struct vw_choices *c, struct vw_err *err);
/* The same without NVLink sets. */
int vw_unit_build(struct vw_unit *u, const struct vw_facts *f, const struct vw_choices *c,
		  struct vw_err *err);
void vw_unit_done(struct vw_unit *u);

/* The member for facts index dev, or NULL. */
const struct vw_unit_member *vw_unit_find(const struct vw_unit *u, int dev);
/* True when no issue is a blocker. */
bool vw_unit_ok(const struct vw_unit *u);
/* Member addresses in address order, NULL-terminated (caller frees with
 * vw_strv_free()): what the VM back ends pass through. */
char **vw_unit_addrs(const struct vw_unit *u, const struct vw_facts *f);

/* The binding to use: choice, or for VW_BIND_AUTO ids unless ambiguous. */
enum vw_binding vw_unit_binding(const struct vw_unit *u, enum vw_binding choice);
/* Append "10de:2204,10de:1aef": the members' ids, each once. */
void vw_unit_ids(struct vw_buf *out, const struct vw_facts *f, const struct vw_unit *u);
/* Host drivers the members use now (vfio-pci and pci-stub left out), each
 * once, NULL-terminated; caller frees with vw_strv_free(). */
char **vw_unit_drivers(const struct vw_facts *f, const struct vw_unit *u);
/* A device outside the unit that module drives (a blacklist of it would
 * hit the host too): its facts index, or -1. */
int vw_unit_blacklist_conflict(const struct vw_facts *f, const struct vw_unit *u, const char *module);

/* Stable reason name: "chosen", "same-slot", "iommu-group", "nvlink-peer",
 * "nvswitch". */
const char *vw_unit_why_name(enum vw_unit_why w);
/* Translated reason of a member: "NVLink peer of 0000:18:00.0". */
void vw_unit_why_text(struct vw_buf *out, const struct vw_facts *f, const struct vw_unit_member *m);

#endif
