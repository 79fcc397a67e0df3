/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mig.h - NVIDIA Multi-Instance GPU (A100, A30, H100, H200): which GPUs
 * have MIG mode on, and the GPU instance profiles each can still make, from
 * nvidia-smi (through core/exec.h: run on the live host, replayed from a
 * snapshot's recordings elsewhere).
 *
 *	nvidia-smi --query-gpu=index,pci.bus_id,mig.mode.current,mig.mode.pending
 *		   --format=csv,noheader
 *	nvidia-smi mig -lgip
 *	nvidia-smi mig -lgi
 *
 * A GPU instance made on the host backs MIG vGPU types (GRID A100D-1-10C,
 * ...) that a VM gets as a mediated device or a vGPU VF; passing a whole GPU
 * to a VM leaves MIG to the guest.
 */
#ifndef VW_MIG_H
#define VW_MIG_H

#include <stdbool.h>
#include <stddef.h>

#include "facts.h"
#include "findings.h"
#include "sysroot.h"
#include "vw.h"

struct vw_mig_gpu {
	int index;		/* nvidia-smi's GPU number */
	char addr[16];		/* "0000:41:00.0", canonical */
	int dev;		/* facts index, -1 when not on this host */
	int current, pending;	/* MIG mode: 1 on, 0 off, -1 not supported */
};

struct vw_mig_profile {
	int gpu;		/* nvidia-smi's GPU number */
	char name[32];		/* "1g.10gb", "1g.10gb+me" */
	int id;			/* profile id for -cgi: 19 */
	int free, total;	/* instances that can still be made / at most */
	double mem_gib;		/* memory of one instance */
};

/* A GPU instance that exists (nvidia-smi mig -lgi). */
struct vw_mig_instance {
	int gpu;		/* nvidia-smi's GPU number */
	char name[32];		/* its profile: "3g.40gb" */
	int profile;		/* profile id: 9 */
	int id;			/* GPU instance id: 2 */
};

struct vw_mig {
	bool known;		/* nvidia-smi answered */
	bool instances_known;	/* -lgi answered (none made is known too) */
	struct vw_mig_gpu *gpus;
	size_t ngpus;
	struct vw_mig_profile *profiles;
	size_t nprofiles;
	struct vw_mig_instance *instances;
	size_t ninstances;
	char **notes;		/* translated: why something is unknown */
	size_t nnotes;
};

/* Parse the two outputs above into *m (zeroed, or holding a parse: it is
 * released first).  Lines that do not parse are skipped; never fails. */
void vw_mig_parse(struct vw_mig *m, const struct vw_facts *f, const char *query, size_t qlen,
		  const char *lgip, size_t llen);

/* Ask nvidia-smi when an NVIDIA GPU of the host is bound to nvidia; *m is
 * initialised in every case (known false and a note when it could not
 * tell).  Returns 0. */
/* Parse nvidia-smi mig -lgi into m->instances (added to those there);
 * sets instances_known.  Lines that do not parse are skipped. */
void vw_mig_parse_lgi(struct vw_mig *m, const char *lgi, size_t len);

/* The profile name on GPU number gpu, or NULL. */
const struct vw_mig_profile *vw_mig_profile_of(const struct vw_mig *m, int gpu, const char *name);

/* GPU instances of profile name on GPU number gpu that exist now. */
int vw_mig_count(const struct vw_mig *m, int gpu, const char *name);

int vw_mig_probe(struct vw_mig *m, const struct vw_sysroot *sr, const struct vw_facts *f);

void vw_mig_done(struct vw_mig *m);

/* Findings for check: gpu-mig (info: MIG on, the profiles it can still
 * make), gpu-mig-pending (warning: a mode change waits for a reset),
 * gpu-mig-unknown (info: nvidia-smi did not answer). */
void vw_mig_findings(const struct vw_mig *m, const struct vw_facts *f, struct vw_findings *fs);

/* The MIG GPU at facts index dev, or NULL. */
const struct vw_mig_gpu *vw_mig_gpu_of(const struct vw_mig *m, int dev);

/* The MIG profile a MIG-backed vGPU type sits on, from NVIDIA's type name:
 * "GRID A100D-1-10C" on 1g.10gb, "A100D-1-10CME" on 1g.10gb+me, into out.
 * False for a time-sliced type ("GRID A100D-10C"). */
bool vw_mig_profile_of_type(const char *name, char out[32]);

#endif
