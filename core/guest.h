/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guest.h - `vfiowiz guest-check`: run inside the VM, is the passthrough
 * working?  GPUs visible (PCI facts), a driver bound to each, NVLink state
 * and link count, peer-to-peer status, and the (normal) absence of an IOMMU
 * inside the guest.
 *
 * NVIDIA GPUs are asked through nvidia-smi (core/exec.h, so a snapshot's
 * recorded outputs are replayed under a sysroot):
 *	nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader
 *	nvidia-smi nvlink -s		(two or more NVIDIA GPUs)
 *	nvidia-smi topo -m		(two or more NVIDIA GPUs)
 *	nvidia-smi topo -p2p rw		(two or more NVIDIA GPUs)
 * Emulated display adapters (QEMU std VGA, QXL, virtio-gpu, VMware SVGA,
 * VirtualBox, Hyper-V, Cirrus) are counted and otherwise ignored.
 *
 * Exit status (docs/guest-check.md):
 *	0  all good
 *	1  degraded: NVLink down or partly down, P2P not OK, nvidia-smi failing
 *	2  no passed-through GPU, or one without a usable driver
 *	3  error (the front end's VW_EXIT_ERROR: unreadable root, bad usage)
 */
#ifndef VW_GUEST_H
#define VW_GUEST_H

#include "facts.h"
#include "findings.h"
#include "nvlink.h"
#include "sysroot.h"
#include "vw.h"

enum {
	VW_GUEST_OK = 0,
	VW_GUEST_DEGRADED = 1,
	VW_GUEST_NO_GPU = 2,
};

struct vw_guest_gpu {
	int dev;		/* index into facts->devs */
	bool driver_ok;		/* a driver other than vfio-pci/pci-stub is bound */
	int index;		/* nvidia-smi index, -1 unknown or not NVIDIA */
	bool seen;		/* nvidia-smi lists it (NVIDIA with driver nvidia) */
	const struct vw_nvlink_links *links;	/* its `nvlink -s` entry, or NULL */
};

struct vw_guest {
	struct vw_guest_gpu *gpus;	/* passed-through GPUs, in address order */
	size_t ngpus;
	int *emulated;			/* facts indexes of emulated displays */
	size_t nemulated;
	size_t nnvidia;			/* GPUs bound to the nvidia driver */
	char *nvidia_version;		/* kernel module version, "" unknown */
	bool order_guessed;		/* indexes matched to addresses by order */
	bool topo_known, p2p_known, links_known;
	struct vw_nvlink_topo topo;
	struct vw_p2p p2p;
	struct vw_nvlink_status links;
	struct vw_findings findings;	/* codes in docs/guest-check.md */
	int hv;				/* enum vw_hv (hypervisor.h) */
	char hv_cpuid[13];		/* CPUID 0x40000000 vendor, "" unknown */
	char *hv_evidence;		/* what told the hypervisor */
	int exit_code;			/* VW_GUEST_* */
};

/* Check the guest under sr whose facts are f.  Fills *g (zeroed first; free
 * with vw_guest_done() in every case).  Returns 0; problems are findings. */
int vw_guest_check(struct vw_guest *g, const struct vw_sysroot *sr, const struct vw_facts *f,
		   struct vw_err *err);
void vw_guest_done(struct vw_guest *g);

/* Reports (text translated; JSON schema "vfiowiz-guest-check/1"). */
void vw_guest_report_text(struct vw_buf *out, const struct vw_guest *g, const struct vw_facts *f);
void vw_guest_report_json(struct vw_buf *out, const struct vw_guest *g, const struct vw_facts *f);


#endif
