/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pipeline.h - the whole plan from facts and choices, built in one sequence
 * shared by `vfiowiz plan`/`apply` (tui/cmd_plan.c) and the wizard's review
 * step:
 *
 *   1. the NVLink sets: the choices' own (the nvlink key, recorded by the
 *      wizard's GPU step while the NVIDIA driver owned the GPUs), else
 *      nvidia-smi through the exec module (under a sysroot: its recorded
 *      outputs);
 *   2. the assignment unit (unit.h) of the chosen devices with those sets,
 *      split_nvlink and keep_out; a blocker stops the plan here;
 *   3. the host (hostplan.h); a member in no IOMMU group stops the plan
 *      here, unless the host plan turns the IOMMU on (hp.turns_iommu_on:
 *      then a note says the groups are known only after the reboot);
 *   4. the VM (vmplan.h), 5. guest access (access.h), each adding its
 *      changes to the one struct vw_plan.
 *
 * What the front ends show besides the changes is in struct vw_plan_info.
 */
#ifndef VW_PIPELINE_H
#define VW_PIPELINE_H

#include "access.h"
#include "answers.h"
#include "plan.h"
#include "facts.h"
#include "hostplan.h"
#include "nvlink.h"
#include "sysroot.h"
#include "unit.h"
#include "vmplan.h"

struct vw_plan_info {
	struct vw_nvlink nl;		/* the NVLink sets the unit was built with */
	struct vw_unit u;
	struct vw_hostplan hp;
	struct vw_vm_info vm;
	struct vw_access_info acc;
	char **notes;			/* translated, in this order: the unit's warnings
					   (the boot display left to the host's note),
					   the host's, the VM's, guest access' */
	size_t nnotes;
};

/* A zeroed struct is a valid empty one; vw_pipeline_info_done() frees what a
 * build filled and zeroes it again. */
void vw_pipeline_info_done(struct vw_plan_info *pi);

/* The NVLink sets for the choices (step 1 above) into *nl (free with
 * vw_nvlink_done() in every case).  Returns 0, or -EINVAL when the choices'
 * sets do not parse (err names the file and line). */
int vw_pipeline_nvlink(struct vw_nvlink *nl, const struct vw_sysroot *sr, const struct vw_facts *f,
		   const struct vw_choices *c, struct vw_err *err);

/* gpu_mode = dynamic takes the unit from the host at every VM start: it is
 * refused (-EPERM, err says why) when the unit holds what the host needs to
 * stay reachable.  The functions the facts know the host needs (host_role)
 * are blockers of the unit already; this adds a network or storage
 * controller in the IOMMU group of one of the unit's GPUs (the host's
 * chipset ones, whether chosen or pulled in by the group), unless the user
 * opted in (allow_host_network, allow_host_storage).  0 otherwise, and
 * always in static mode. */
int vw_pipeline_dynamic_check(const struct vw_facts *f, const struct vw_unit *u, const struct vw_choices *c,
			  struct vw_err *err);

/* Build the whole plan into plan (vw_plan_init'ed by the caller) and fill
 * *out (vw_pipeline_info_done'd first).  Returns 0, or a negative code with err
 * set: a bad device in the choices, a blocker of the unit (its message and
 * remedy), or a refusal of the host, VM or access step; plan may then hold
 * part of the changes and must not be applied. */
int vw_pipeline_build(struct vw_plan *plan, const struct vw_sysroot *sr, const struct vw_facts *f,
		      const struct vw_choices *c, struct vw_plan_info *out, struct vw_err *err);

#endif
