/* SPDX-License-Identifier: GPL-2.0-or-later */
/* picks.h - the edits the wizard's steps make to the choices, kept out of
 * the UI: choosing a card by its slot, and the ACS override aimed at one
 * unit.  Strings in the choices stay owned by them (answers.h). */
#ifndef VW_PICKS_H
#define VW_PICKS_H

#include "acs.h"
#include "answers.h"
#include "facts.h"
#include "mig.h"
#include "nvlink.h"
#include "unit.h"

/* Whether the choices name d, by its address or by its slot. */
bool vw_choices_has_dev(const struct vw_choices *c, const struct vw_pci_dev *d);
/* Add d's slot ("0000:09:00": every function) to the choices, or remove
 * every entry naming that slot or one of its functions. */
void vw_choices_set_slot(struct vw_choices *c, const struct vw_pci_dev *d, bool on);

/* The wizard's own form of the device list: a GPU the user ticked is its
 * slot ("0000:09:00"); a device given along for an IOMMU group is its
 * function address ("0000:04:00.0").  A choice made for a group thus
 * belongs to the GPUs whose group forced it, and goes when they go. */

/* Whether the user ticked d's card: an entry is d's slot. */
bool vw_choices_has_gpu(const struct vw_choices *c, const struct vw_pci_dev *d);
/* Tick or untick d's card (vw_choices_set_slot), then vw_choices_tidy(). */
void vw_choices_set_gpu(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl,
			const struct vw_pci_dev *d, bool on);
/* Give every member that u brought in through an IOMMU group (on), or take
 * them back (off), as function addresses. */
void vw_choices_give_group(struct vw_choices *c, const struct vw_facts *f, const struct vw_unit *u,
			   bool on);
/* Drop every choice that belongs to no ticked card any more: function
 * entries the ticked cards' unit does not force, the ACS override when no
 * group is shared, the host display opt-in when the unit holds no display
 * of the host, the opt-ins for the host's disks, network and keyboard when
 * it holds no such device, blacklisted modules no member uses.  A pure function of the
 * choices and the host: the same ticked cards always leave the same rest.
 * Returns true when something was dropped. */
bool vw_choices_tidy(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl);
/* Saved choices against the host as it is now: drop every ticked card (a
 * slot entry) whose slot holds no GPU here any more (the card moved, or a
 * file names another device), then vw_choices_tidy().  The GPU step lists
 * GPUs only: such an entry could be neither seen nor unticked there.
 * *gone (NULL-terminated, caller frees with vw_strv_free; NULL when nothing
 * was dropped) lists them.  Returns true when something was dropped. */
bool vw_choices_drop_gone(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl,
			  char ***gone);
/* The unit of the ticked cards alone (slot entries), with nl (may be NULL). */
void vw_choices_gpu_unit(struct vw_unit *u, const struct vw_choices *c, const struct vw_facts *f,
			 const struct vw_nvlink *nl);
/* A card named by a function address in a hand-written file, and not
 * forced along by another ticked card, becomes a ticked card (its slot).
 * Returns true when something changed. */
bool vw_choices_adopt_gpus(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl);

/* Record NVLink sets read while the NVIDIA driver owned the GPUs (the nvlink
 * key: after binding, nvidia-smi sees nothing) when the choices have none
 * yet and nl holds what nvidia-smi said (probed or recorded, not guessed).
 * Returns true when the choices changed. */
bool vw_choices_keep_nvlink(struct vw_choices *c, const struct vw_nvlink *nl);

/* The id: tokens of an ACS override aimed at this unit only: the ids of
 * its members that did not come through a group, and of every bridge
 * without ACS on their way up to the root (at most VW_ACS_MAX_IDS).
 * Fills ov->ids/nids and leaves the rest of ov. */
void vw_picks_acs_ids(const struct vw_facts *f, const struct vw_unit *u, struct vw_acs_override *ov);

/* True when the device lies on the way of a display function: its slot
 * holds a display-class function (the GPUs the user chose, as opposed to
 * devices added for their IOMMU group). */
bool vw_picks_gpu_slot(const struct vw_facts *f, const struct vw_pci_dev *d);

/* ---- sharing one card (issue 16) ----
 *
 * A card is a GPU that is no VF: the PF of SR-IOV virtual functions, a
 * parent of mediated devices (itself or through its VFs), a MIG GPU.  The
 * wizard gives it whole (its slot in devices) or shared, one way at a time:
 *  - N virtual functions: sriov_numvfs "PF=N", and the first VF that exists
 *    now in devices (none when none exists yet: the plan makes them);
 *  - one vGPU type: mdev "PARENT=TYPE" on the first parent (the card or a
 *    VF) with a free instance, or vgpu "VF=ID" on the first VF holding none;
 *  - one MIG profile: mig "GPU=PROFILE", and the MIG-backed vGPU type of
 *    that profile (mdev or vgpu) where the host lists one with room.
 * These elements belong to their card: giving it whole, or not at all,
 * drops them (vw_choices_set_gpu, vw_choices_tidy). */

/* One vGPU type a card offers, summed over its parents, from the facts. */
struct vw_offer_type {
	char id[72];		/* mdev type id "nvidia-701", or vGPU type number "1004" */
	char name[72];		/* "GRID A100D-10C", "NVIDIA L40-16C"; the id when none */
	const char *description;	/* mdev description (in facts), "" none */
	bool vgpu;		/* NVIDIA vendor-specific (vgpu key); else mdev */
	int free;		/* instances that can be made now */
	int total;		/* free plus those of this type that exist */
};

/* How a card can be given: what the host says now. */
struct vw_offer {
	int dev;		/* the card's facts index */
	int vfs_used;		/* its VFs bound to a driver (vfio-pci too) */
	int mdevs_now;		/* mediated devices that exist on it or its VFs */
	int sriov_total, sriov_num;	/* the PF's counts; 0 when no SR-IOV */
	bool vf_model;		/* VFs: a vGPU through them, never VFs alone
				   (NVIDIA: its VFs exist for vGPU types) */
	struct vw_offer_type *types;
	size_t ntypes;
	const struct vw_mig_gpu *mig;	/* into the vw_mig given; NULL: no MIG */
	size_t *profiles;	/* indexes into that vw_mig's profiles, this GPU's */
	size_t nprofiles;
};

/* The card a device belongs to: its PF for a VF, else itself. */
int vw_picks_card(const struct vw_facts *f, int dev);
/* Fill *o for card dev (m may be NULL: no MIG).  vw_offer_done frees it. */
void vw_offer_build(struct vw_offer *o, const struct vw_facts *f, const struct vw_mig *m, int dev);
void vw_offer_done(struct vw_offer *o);
/* Whether the card can be given otherwise than whole. */
bool vw_offer_shareable(const struct vw_offer *o);
/* Whether the card can go whole: no VF in use by the host, no mdev on it. */
bool vw_offer_whole_ok(const struct vw_offer *o);
/* The MIG-backed vGPU type (an index into o->types) for a profile name
 * ("1g.10gb": a type named "...-1-10C"), one with a free instance first,
 * else one whose instance the mig key makes at boot; -1 none. */
int vw_offer_mig_type(const struct vw_offer *o, const char *profile);

/* Whether the choices share card dev (an element above belongs to it). */
bool vw_choices_shared(const struct vw_choices *c, const struct vw_facts *f, int dev);
/* Drop every sharing element of card dev.  True when something went. */
bool vw_choices_unshare(struct vw_choices *c, const struct vw_facts *f, int dev);
/* Give card o->dev shared, instead of whatever it was given before (whole
 * or another way), then vw_choices_tidy().  count: 1..sriov_total;
 * type: an index into o->types; profile: an index into o->profiles.
 * Return 0, or -ENOSPC when nothing of that is free (choices unchanged). */
int vw_choices_share_vfs(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl,
			 const struct vw_offer *o, int count);
int vw_choices_share_type(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl,
			  const struct vw_offer *o, size_t type);
int vw_choices_share_mig(struct vw_choices *c, const struct vw_facts *f, const struct vw_nvlink *nl,
			 const struct vw_offer *o, const struct vw_mig *m, size_t profile);

#endif
