/* SPDX-License-Identifier: GPL-2.0-or-later */
/* picks.h - the edits the wizard's steps make to the choices, kept out of
 * the UI: choosing a card by its slot, and the ACS override aimed at one
 * unit.  Strings in the choices stay owned by them (answers.h). */
#ifndef VW_PICKS_H
#define VW_PICKS_H

#include "acs.h"
#include "answers.h"
#include "facts.h"
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

#endif
