/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vmplan.h - the VM configuration step (docs/design.md): a VM that owns
 * every function of the assignment unit, for libvirt or Proxmox VE.
 *
 * Each VM target is a back end: a const struct vw_vm_ops with detect() and
 * plan() (as pciutils' struct pci_methods).  Back ends only add changes to a
 * plan (core/plan.h); they never write and never run anything but the
 * read-only `virsh dumpxml` of an existing domain and `virsh --version` on
 * a live host.
 *
 * Large BARs (A100/H100/H200): the unit's 64-bit BARs size the guest's MMIO
 * window (vw_vm_bars_get); libvirt gets <maxphysaddr mode='passthrough'/>
 * (8.7+; QEMU's host-phys-bits through <qemu:commandline> before) and
 * `-fw_cfg name=opt/ovmf/X-PciMmio64Mb,string=MB`; Proxmox `cpu:
 * ...,phys-bits=host` and `args: -fw_cfg ...`.  A BAR of 32 GiB or more
 * needs q35 and OVMF: an existing VM without them is refused.
 *
 *  - libvirt: a new domain starts from templates/libvirt-<os>.xml; an existing
 *    one is read (etc/libvirt/qemu/NAME.xml under a sysroot, `virsh dumpxml
 *    --inactive --security-info NAME` on the live host) and modified with
 *    libxml2, everything but the hostdevs (and the chosen VNC display and
 *    "Code 43" options) kept.  Either way the result is a file of ours,
 *    VW_LIBVIRT_DIR/NAME.xml (mode 0600, secret when it holds a VNC
 *    password), defined by the post-command `virsh define FILE`: libvirt's
 *    own files are never edited.
 *  - Proxmox VE: etc/pve/qemu-server/VMID.conf, new (from
 *    templates/proxmox-<os>.conf, next free VMID) or existing (main section
 *    only; snapshots and [PENDING] untouched), one hostpciN per slot.
 *
 * The templates are read and filled in by core/template.h.
 */
#ifndef VW_VMPLAN_H
#define VW_VMPLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "answers.h"
#include "plan.h"
#include "facts.h"
#include "sysroot.h"
#include "unit.h"
#include "vw.h"

/* Where our libvirt domain documents go (root-relative). */
#define VW_LIBVIRT_DIR "etc/vfiowiz/libvirt"
/* Size of a new qcow2 image when the answers give none. */
#define VW_VM_DEFAULT_DISK_GIB 64
/* Proxmox allows hostpci0 .. hostpci15. */
#define VW_PVE_MAX_HOSTPCI 16

/* ---- the unit, slot by slot ---------------------------------------------- */

/* The functions of the unit that share one host slot (domain:bus:dev). */
struct vw_vm_slot {
	unsigned domain, bus, dev;
	int *devs;		/* indexes into facts->devs, function order */
	size_t ndevs;
	bool all_functions;	/* every function the host has in this slot */
	bool gpu;		/* holds a display-class function */
	bool vga;		/* holds a VGA-compatible function (0300) */
	bool nvidia;		/* holds an NVIDIA display function */
	bool vf;		/* an SR-IOV virtual function, alone in its slot */
	unsigned func;		/* a VF's function number (its slot is itself) */
};

/* Group the unit's members by slot, in address order.  Returns the count;
 * *slots is caller-freed with vw_vm_slots_free(). */
size_t vw_vm_slots(const struct vw_facts *f, const struct vw_unit *u, struct vw_vm_slot **slots);
void vw_vm_slots_free(struct vw_vm_slot *slots, size_t n);

/* True when the "Code 43" options apply: chosen (hide_kvm), a Windows guest,
 * and an NVIDIA GPU in the unit. */
bool vw_vm_code43(const struct vw_choices *c, const struct vw_facts *f, const struct vw_unit *u);

/* ---- large BARs ------------------------------------------------------------ */

/* The unit's BARs, as the VM must map them (core/bars.h). */
struct vw_vm_bars {
	uint64_t sum64;		/* bytes of 64-bit memory BARs, every member */
	uint64_t max;		/* the largest BAR */
	uint64_t mmio_mb;	/* OVMF's X-PciMmio64Mb; 0: the default window fits */
	bool large;		/* a BAR >= VW_BAR_LARGE: q35 and OVMF required */
};

void vw_vm_bars_get(const struct vw_facts *f, const struct vw_unit *u, struct vw_vm_bars *b);
/* The fw_cfg value: "name=opt/ovmf/X-PciMmio64Mb,string=MB".  Caller frees. */
char *vw_vm_mmio_fwcfg(const struct vw_vm_bars *b);

/* Looking Glass's shared memory for a guest resolution, in MiB: two frames
 * of 4 bytes a pixel plus 10 MiB, rounded up to a power of two (1920x1080:
 * 32, 2560x1440: 64, 3840x2160: 128). */
long vw_lg_size_mib(long width, long height);

/* ---- back ends ----------------------------------------------------------- */

/* What the VM step planned: for the access step and for people. */
struct vw_vm_info {
	bool planned;		/* false: the answers configure no VM */
	enum vw_vm_target target;
	enum vw_guest_os guest_os;
	char *name;		/* domain / VM name ("" unknown) */
	long vmid;		/* Proxmox VMID, 0 for libvirt */
	bool created;		/* a new VM (not an existing one modified) */
	char *config_path;	/* root-relative file the plan writes */
	bool vnc;		/* host-side VNC on 127.0.0.1 was planned (libvirt) */
	bool install_display;	/* a display kept for the OS installation
				   although VNC was not chosen: libvirt VNC on
				   127.0.0.1, Proxmox's emulated VGA (noVNC) */
	char *commands;		/* equivalent commands for people (qm create/set,
				   a pci.cfg mapping), one a line; "" none */
	char **notes;		/* translated, one paragraph each; NULL-terminated,
				   never NULL */
	size_t nnotes;
};

void vw_vm_info_init(struct vw_vm_info *i);
void vw_vm_info_done(struct vw_vm_info *i);
/* Append a translated note (printf format). */
void vw_vm_info_note(struct vw_vm_info *i, const char *fmt, ...) VW_PRINTF(2, 3);

/* Everything a back end reads. */
struct vw_vm_ctx {
	const struct vw_sysroot *sr;
	const struct vw_facts *facts;
	const struct vw_choices *choices;
	const struct vw_unit *unit;
};

/* The rest of the program asks a back end what it can do (these fields),
 * never which one it is: a new target is one file with its ops table and a
 * line in VW_VM_TARGETS (core/backends.h). */
struct vw_vm_ops {
	const char *name;		/* "libvirt", "proxmox": stable, its VW_VM_TARGETS word */
	const char *label;		/* N_(), for people: "libvirt (virt-manager, virsh)" */
	const char *product;		/* the software's own name in messages, never
					   translated: "libvirt", "Proxmox VE" */
	enum vw_vm_target target;
	/* The VM's emulated display can be a VNC server on the host's loopback,
	 * reached through an SSH tunnel (libvirt); false: the target has its
	 * own console (Proxmox's noVNC), which never shows the GPU's output. */
	bool host_vnc;
	/* New guests sit behind the host's NAT (libvirt's default network):
	 * an SSH tunnel through the host reaches the guest from the guest's
	 * own subnet, so guest firewalls must accept it. */
	bool nat_guest_net;
	/* VMs are numbered (Proxmox's VMID): a VM can be named by number alone. */
	bool uses_vmid;
	/* The target makes the VM's mediated devices itself when the VM starts
	 * (Proxmox's hostpci mdev=); false: they are defined on the host with
	 * mdevctl, persistently, before the VM uses them (libvirt). */
	bool creates_mdevs;
	/* vfiowiz can hand it NVIDIA vGPU VFs of the vendor-specific model
	 * (a PCI hostdev the host does not rebind: managed='no'). */
	bool vendor_vgpu;
	/* vfiowiz plans Looking Glass for its VMs (vm.looking_glass: the
	 * ivshmem or kvmfr shared memory the guest's frames go through). */
	bool looking_glass;
	/* Its VMs start and stop through libvirt's QEMU hook, where
	 * gpu_mode = dynamic hands the GPU over (core/hooks.h). */
	bool qemu_hooks;
	/* Devices may be named by a cluster resource mapping (vm.mapping:
	 * Proxmox VE's /etc/pve/mapping/pci.cfg). */
	bool pci_mapping;
	/* Installation ISOs may be storage volumes ("local:iso/X.iso", which
	 * the plan checks) as well as paths on this host (Proxmox). */
	bool iso_volumes;
	/* N_(), for people: what choosing this target makes, and what to do
	 * when it is not installed on this host. */
	const char *about;
	const char *absent;
	/* True when the host under sr runs this target. */
	bool (*detect)(const struct vw_sysroot *sr, const struct vw_facts *f);
	/* Add the VM's changes to p and fill info.  Returns 0 or a negative
	 * code with err set (the plan may then hold part of the changes). */
	int (*plan)(struct vw_plan *p, const struct vw_vm_ctx *ctx, struct vw_vm_info *info,
		    struct vw_err *err);
};

/* The UUID of the k-th mediated device of the choices (c->mdevs[k]): a
 * function of the choices, so planning twice gives the same file. */
void vw_mdev_uuid(const struct vw_choices *c, size_t k, char out[37]);

/* The host side of the choices' mediated devices for a target that does
 * not make them itself: one mdevctl definition each (etc/mdevctl.d/PARENT/
 * UUID, started at boot), and notes into info.  The elements were checked
 * against the host (vw_answers_check).  Returns 0 or a negative code. */
int vw_mdev_plan(struct vw_plan *p, const struct vw_sysroot *sr, const struct vw_facts *f,
		 const struct vw_choices *c, struct vw_vm_info *info, struct vw_err *err);

#define VW_VM_OPS_EXTERN_(e, sym, name, value) extern const struct vw_vm_ops vw_vm_##sym##_ops;
VW_VM_TARGETS(VW_VM_OPS_EXTERN_)
#undef VW_VM_OPS_EXTERN_
/* Every back end, in detection order (Proxmox before libvirt: a Proxmox
 * host may have libvirt's client tools); NULL-ended. */
extern const struct vw_vm_ops *const vw_vm_backends[];

/* The back end of a target; the default target's (value 0) for a value
 * that is none.  Never NULL. */
const struct vw_vm_ops *vw_vm_ops_get(enum vw_vm_target t);
/* The first back end whose detect() says yes (Proxmox before libvirt: a
 * Proxmox host may have libvirt's client tools), or NULL. */
const struct vw_vm_ops *vw_vm_detect(const struct vw_sysroot *sr, const struct vw_facts *f);

/* The VM step of the plan: when the answers name a VM (vm.name, or a
 * Proxmox vm.vmid), plan it with the back end of vm.target for the unit u.
 * info is initialised here (vw_vm_info_done() in every case); info->planned
 * says whether a VM was configured.  Returns 0 or a negative code with err
 * set. */
int vw_vmplan_build(struct vw_plan *p, const struct vw_sysroot *sr, const struct vw_facts *f,
		    const struct vw_choices *c, const struct vw_unit *u, struct vw_vm_info *info,
		    struct vw_err *err);

/* Helpers shared by the back ends (and tests). */

/* libvirt domain names we accept: [A-Za-z0-9._+-], not starting with '.',
 * at most 64 bytes (the name becomes a file name of ours). */
bool vw_vm_name_ok(const char *name);

/* libvirt refuses VNC passwords longer than this at define time. */
#define VW_VNC_PASSWORD_MAX 8

/* Check the password of the VM's VNC display (it goes into the libvirt
 * domain's XML): 1 to VW_VNC_PASSWORD_MAX bytes of UTF-8 text without
 * control characters, not only blanks.  The message gives the reason (never
 * the password).  Returns 0 or -EINVAL. */
int vw_vm_vnc_password_check(const char *password, struct vw_err *err);

/* The most memory a VM may have on this host: a VM with a passed-through
 * device has all its memory pinned (VFIO maps it for DMA), so what it takes
 * the host cannot get back; the host keeps an eighth of its memory, at
 * least 2 GiB (a quarter on a host of less than 8 GiB) and at most 8 GiB.
 * 0 when the host's memory is unknown. */
long vw_vm_memory_max(const struct vw_facts *f);
/* 0 when mib fits vw_vm_memory_max(), else -EINVAL with the reason. */
int vw_vm_memory_check(const struct vw_facts *f, long mib, struct vw_err *err);

/* Check an ISO of the answers (install_iso, virtio_iso) for libvirt: an
 * absolute path that exists under sr.  Returns 0 or a negative code with
 * err set (what names the ISO for the message). */
int vw_vm_check_iso(const struct vw_sysroot *sr, const char *path, const char *what,
		    struct vw_err *err);

/* Check that the block device path (a /dev path, by-id links welcome) can
 * be given whole to the VM: it exists under sr and neither it nor one of its
 * partitions is mounted or used as swap by the host.  Returns 0 or a
 * negative code with err set. */
int vw_vm_check_whole_disk(const struct vw_sysroot *sr, const char *path, struct vw_err *err);

/* Next free Proxmox VMID (>= 100): above every NNN.conf in
 * etc/pve/qemu-server and in the qemu-server and lxc directories of every
 * node under etc/pve/nodes. */
long vw_pve_next_vmid(const struct vw_sysroot *sr);

/* Check one hostpciN value against the property syntax (docs/formats.md section 7):
 * [host=]HOSTPCIID[;HOSTPCIID...] or mapping=ID, then known keys with valid
 * values.  Returns true when valid, else false with err set. */
bool vw_pve_hostpci_valid(const char *value, struct vw_err *err);

#endif
