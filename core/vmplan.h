/* vmplan.h - the VM configuration step (DESIGN.md, step 5): a VM that owns
 * every function of the assignment unit, for libvirt or Proxmox VE.
 *
 * Each VM target is a back end: a const struct vw_vm_ops with detect() and
 * plan() (as pciutils' struct pci_methods).  Back ends only add changes to a
 * plan (core/change.h); they never write and never run anything but the
 * read-only `virsh dumpxml` of an existing domain on a live host.
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
 * Templates are the program's own data, not the host's: they are read with
 * plain stdio from vw_template_dir(), never through the sysroot.
 */
#ifndef VW_VMPLAN_H
#define VW_VMPLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "answers.h"
#include "change.h"
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

/* ---- templates ----------------------------------------------------------- */

/* Directory holding the templates: $VFIOWIZ_TEMPLATES, else the source tree's
 * templates/, else $(pkgdatadir)/templates; the first that holds
 * libvirt-windows.xml wins.  NULL when none does.  Caller frees. */
char *vw_template_dir(void);

/* Read template name ("libvirt-windows.xml") from vw_template_dir().
 * *text is NUL-terminated (caller frees); len may be NULL.  Returns 0 or a
 * negative code with err set. */
int vw_template_load(const char *name, char **text, size_t *len, struct vw_err *err);

/* A variable of vw_template_expand(). */
struct vw_tvar {
	const char *name;	/* "ALLOW" for @ALLOW@ */
	const char *value;	/* inserted verbatim: the caller quotes */
};

/* Append text to out with every @NAME@ (NAME of [A-Z0-9_], starting with a
 * letter) replaced by its value; any other '@' is copied as is.  A NAME not
 * in vars is an error naming the template (tname), so that a typo in a
 * template never reaches a host.  Returns 0 or -EINVAL. */
int vw_template_expand(struct vw_buf *out, const char *text, size_t len,
		       const struct vw_tvar *vars, size_t nvars, const char *tname,
		       struct vw_err *err);

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
};

/* Group the unit's members by slot, in address order.  Returns the count;
 * *slots is caller-freed with vw_vm_slots_free(). */
size_t vw_vm_slots(const struct vw_facts *f, const struct vw_unit *u, struct vw_vm_slot **slots);
void vw_vm_slots_free(struct vw_vm_slot *slots, size_t n);

/* True when the "Code 43" options apply: chosen (hide_kvm), a Windows guest,
 * and an NVIDIA GPU in the unit. */
bool vw_vm_code43(const struct vw_choices *c, const struct vw_facts *f, const struct vw_unit *u);

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

struct vw_vm_ops {
	const char *name;		/* "libvirt", "proxmox": stable */
	enum vw_vm_target target;
	/* True when the host under sr runs this target. */
	bool (*detect)(const struct vw_sysroot *sr, const struct vw_facts *f);
	/* Add the VM's changes to p and fill info.  Returns 0 or a negative
	 * code with err set (the plan may then hold part of the changes). */
	int (*plan)(struct vw_plan *p, const struct vw_vm_ctx *ctx, struct vw_vm_info *info,
		    struct vw_err *err);
};

extern const struct vw_vm_ops vw_vm_libvirt_ops;
extern const struct vw_vm_ops vw_vm_proxmox_ops;

/* The back end of a target (never NULL for a valid target). */
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

/* Check that the block device path (a /dev path, by-id links welcome) can
 * be given whole to the VM: it exists under sr and neither it nor one of its
 * partitions is mounted or used as swap by the host.  Returns 0 or a
 * negative code with err set. */
int vw_vm_check_whole_disk(const struct vw_sysroot *sr, const char *path, struct vw_err *err);

/* Next free Proxmox VMID (>= 100): above every NNN.conf in
 * etc/pve/qemu-server and in the qemu-server and lxc directories of every
 * node under etc/pve/nodes. */
long vw_pve_next_vmid(const struct vw_sysroot *sr);

/* Check one hostpciN value against the property syntax (formats.md 7):
 * [host=]HOSTPCIID[;HOSTPCIID...] or mapping=ID, then known keys with valid
 * values.  Returns true when valid, else false with err set. */
bool vw_pve_hostpci_valid(const char *value, struct vw_err *err);

#endif
