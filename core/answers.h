/* SPDX-License-Identifier: GPL-2.0-or-later */
/* answers.h - what the user chose: the plain struct the wizard fills, and the
 * libconfuse answers file that holds it (non-interactive runs, and the
 * wizard's state file var/lib/vfiowiz/state.conf).
 *
 * The format is documented, key by key, in docs/answers.example.conf.
 * Parsing is strict: an unknown key, a bad value, a key given twice or a
 * syntax error is an error "FILE:LINE: message".  Devices are checked against
 * a host separately (vw_answers_check), so a file can be parsed without one.
 * The state file's "progress { ... }" section (state.h) is part of the
 * format: one parser reads both files, and an answers file may be a copy of
 * the state file (plain vw_answers_parse() ignores the section).
 *
 * Strings in struct vw_choices are owned by it (vw_choices_done frees them);
 * "" means unset, never NULL.
 */
#ifndef VW_ANSWERS_H
#define VW_ANSWERS_H

#include <stdbool.h>
#include <stddef.h>

#include "acs.h"
#include "facts.h"
#include "sysroot.h"
#include "vw.h"

/* The wizard's state file (mode 0600), relative to the sysroot. */
#define VW_STATE_FILE "var/lib/vfiowiz/state.conf"

/* Answers files larger than this are refused. */
#define VW_ANSWERS_MAX (1u << 20)

enum vw_binding {
	VW_BIND_AUTO = 0,	/* ids when unambiguous, else address */
	VW_BIND_IDS,		/* options vfio-pci ids= (modprobe.d) */
	VW_BIND_ADDRESS,	/* per address: driver_override early at boot */
	VW_BIND_CMDLINE,	/* vfio-pci.ids= on the kernel command line */
};

/* When vfio-pci gets the GPU (docs/answers.example.conf, gpu_mode). */
enum vw_gpu_mode {
	VW_GPU_STATIC = 0,	/* at boot, for good: modprobe.d / kernel parameters */
	VW_GPU_DYNAMIC,		/* only while the VM runs: libvirt hooks hand it over */
};

/* Looking Glass (vm.looking_glass): how the guest's frames reach the host. */
enum vw_looking_glass {
	VW_LG_NONE = 0,
	VW_LG_IVSHMEM,		/* <shmem> device, /dev/shm/looking-glass */
	VW_LG_KVMFR,		/* the kvmfr module's /dev/kvmfr0 */
};

enum vw_guest_os { VW_GUEST_WINDOWS = 0, VW_GUEST_LINUX };
enum vw_storage_type { VW_STORAGE_QCOW2 = 0, VW_STORAGE_IMAGE, VW_STORAGE_DISK };

/* vm { ... }: filled by the VM step; the VM back ends read it. */
struct vw_vm_choices {
	enum vw_vm_target target;
	char *name;		/* libvirt domain name / Proxmox VM name */
	bool existing;		/* modify an existing VM instead of a new one */
	long vmid;		/* Proxmox VMID, 0 = pick the next free one */
	long memory_mib;
	long vcpus;
	enum vw_guest_os guest_os;
	bool hide_kvm;		/* the "Code 43" options */
	enum vw_storage_type storage_type;
	char *storage_path;	/* image file or whole disk */
	long storage_size_gib;	/* size of a new qcow2 */
	char *install_iso;	/* installer ISO: an absolute path (libvirt) or a
				   Proxmox volume "local:iso/NAME.iso"; "" none */
	char *virtio_iso;	/* virtio-win drivers ISO, the same forms */
	enum vw_looking_glass looking_glass;
	long lg_width, lg_height;	/* guest resolution the buffer is sized for */
	char *mapping;		/* Proxmox cluster resource mapping ID for the
				   VM's devices ("" none): written to
				   /etc/pve/mapping/pci.cfg, hostpciN names it */
};

/* access { ... }: filled by the guest-access step. */
struct vw_access_choices {
	bool vnc;
	char *vnc_password;	/* secret: never logged; at most 8 characters */
	bool rdp;
	long rdp_port;
	bool xrdp;
	char **allow;		/* NULL-terminated allow-list (addresses, CIDRs) */
	size_t nallow;
	char *ssh_user;
	char *ssh_host;
};

struct vw_choices {
	char **devices;		/* NULL-terminated, as written: "0000:01:00.0",
				   or a slot "0000:01:00" (all its functions) */
	size_t ndevices;
	char **keep_out;	/* NULL-terminated, canonical like devices: what
				   must not go to this VM (unit.h keep_out) */
	size_t nkeep_out;
	bool split_nvlink;	/* the explicit choice to split NVLink sets
				   (unit.h allow_split_nvlink) */
	char **nvlink;		/* NULL-terminated NVLink sets, one an element,
				   in the state form of nvlink.h
				   ("0000:18:00.0,0000:2a:00.0/NV18") */
	size_t nnvlink;
	bool nvlink_known;	/* the file has an nvlink key ("{}": no set);
				   false: the plan asks nvidia-smi */
	enum vw_bootloader bootloader;	/* VW_BL_UNKNOWN = auto */
	enum vw_initramfs initramfs;	/* VW_IRFS_UNKNOWN = auto */
	enum vw_binding binding;
	bool iommu_pt;
	struct vw_acs_override acs;	/* explicit tokens */
	bool acs_ids;		/* "ids": id: tokens derived from the devices */
	bool allow_host_display;
	enum vw_gpu_mode gpu_mode;
	/* Explicit opt-ins to give away what the running host needs
	 * (facts.h enum vw_host_role; unit.h host-storage, ...): */
	bool allow_host_storage;	/* a controller of the host's disks */
	bool allow_host_network;	/* the NIC of the default route / SSH session */
	bool allow_host_input;		/* the USB controller of the only keyboard */
	char **blacklist;	/* NULL-terminated module names to blacklist */
	size_t nblacklist;
	char **mdevs;		/* NULL-terminated "PARENT=TYPE": a mediated
				   device (vGPU) of that type on that parent
				   function for the VM, one per element
				   (the same pair twice: two of them) */
	size_t nmdevs;
	char **vgpus;		/* NULL-terminated "VF=ID": NVIDIA's vendor-specific
				   vGPU model (Ada, Hopper): the VF gets vGPU
				   type ID (nvidia/current_vgpu_type) at boot
				   and goes to the VM, left with nvidia */
	size_t nvgpus;
	char **sriov;		/* NULL-terminated "PF=N": make N SR-IOV virtual
				   functions on that PF at every boot (its VFs
				   can then be chosen in devices) */
	size_t nsriov;
	char **migs;		/* NULL-terminated "GPU=PROFILE": a MIG GPU
				   instance (with its compute instance) of
				   nvidia-smi's profile name made on that GPU
				   at every boot, one per element (the same
				   pair twice: two of them); it backs a MIG
				   vGPU type chosen in mdev or vgpu */
	size_t nmigs;
	bool test_boot;		/* one-shot test boot where supported */
	struct vw_vm_choices vm;
	struct vw_access_choices access;

	/* Where the choices came from, for messages: the file name ("" when
	 * the wizard built them) and the line of each key (0 = default). */
	char *source;
	int devices_line;
	int acs_line;
	int blacklist_line;
	int mdev_line;
	int sriov_line;
	int vgpu_line;
	int mig_line;
	int bootloader_line;
	int initramfs_line;
	int binding_line;
	int nvlink_line;
	int gpu_mode_line;
	int looking_glass_line;
	int mapping_line;
};

/* progress { ... }: how far the wizard got (state.h owns the meaning).
 * Strings owned by the struct, "" when unset. */
struct vw_progress {
	bool present;		/* the file has the section */
	long version;		/* of the state format */
	char *step;
	char *boot_id;
	bool applied;
	char *applied_boot_id;
	char *journal;
};

void vw_progress_init(struct vw_progress *p);
void vw_progress_done(struct vw_progress *p);

/* "FILE:LINE: " for a key's line (line 0: "FILE: "; no file: ""), for
 * messages about a choice.  Returns buf. */
char *vw_choices_where(const struct vw_choices *c, int line, char *buf, size_t size);

/* Defaults (see docs/answers.example.conf). */
void vw_choices_init(struct vw_choices *c);
void vw_choices_done(struct vw_choices *c);

/* Parse an answers file held in memory; name is used in messages.  c must
 * be zeroed or hold choices (they are released first).  On success c holds
 * the file's choices; on failure the defaults, and err says
 * "name:line: what".  Returns 0 or -EINVAL. */
int vw_answers_parse(struct vw_choices *c, const char *text, size_t len, const char *name,
		     struct vw_err *err);
/* The same, and the progress section into *p (zeroed or initialised; the
 * defaults, present false, when the file has none). */
int vw_answers_parse_progress(struct vw_choices *c, struct vw_progress *p, const char *text,
			      size_t len, const char *name, struct vw_err *err);

/* Read and parse the answers file at path.  The path is the user's own
 * (given on the command line), not a sysroot path.  Returns 0 or a negative
 * code with err set. */
int vw_answers_load(struct vw_choices *c, const char *path, struct vw_err *err);

/* The same for a file under a sysroot (the state file). -ENOENT when absent. */
int vw_answers_load_sr(struct vw_choices *c, const struct vw_sysroot *sr, const char *rel,
		       struct vw_err *err);

/* Check the choices against a host: every device names a function or a slot
 * that exists.  Errors name the file and line ("a.conf:2: no PCI device
 * 0000:09:00.0 on this host").  Returns 0 or -ENODEV. */
int vw_answers_check(const struct vw_choices *c, const struct vw_facts *f, struct vw_err *err);

/* Only the sriov_numvfs part of vw_answers_check(). */
int vw_answers_check_sriov(const struct vw_choices *c, const struct vw_facts *f, struct vw_err *err);

/* Resolve the device list to function indexes in facts (sorted, each once).
 * *idx is caller-freed (may be NULL when *n is 0).  Returns 0 or -ENODEV like
 * vw_answers_check. */
int vw_answers_devices(const struct vw_choices *c, const struct vw_facts *f, int **idx,
		       size_t *n, struct vw_err *err);

/* Append the choices in the answers format (every key, with a header line),
 * so that vw_answers_parse() reads back the same struct. */
void vw_answers_format(struct vw_buf *out, const struct vw_choices *c);
/* Append the progress section, for the state file. */
void vw_answers_format_progress(struct vw_buf *out, const struct vw_progress *p);

/* Write the choices to rel under sr atomically, mode 0600 (they may hold the
 * VNC password).  Returns 0 or a negative code with err set. */
int vw_answers_save(const struct vw_sysroot *sr, const char *rel, const struct vw_choices *c,
		    struct vw_err *err);

/* Split an element of mdevs into its canonical parent address (16 bytes)
 * and its type (a pointer into s).  False when s is malformed. */
bool vw_mdev_split(const char *s, char parent[16], const char **type);
/* The same for an element of sriov: the PF's address and the count. */
bool vw_sriov_split(const char *s, char pf[16], int *count);
/* The same for an element of migs: the GPU's address and the profile name
 * (pointing into s). */
bool vw_mig_split(const char *s, char gpu[16], const char **profile);

/* Stable names used in the file. */
const char *vw_binding_name(enum vw_binding b);
const char *vw_gpu_mode_name(enum vw_gpu_mode m);
const char *vw_looking_glass_name(enum vw_looking_glass lg);

#endif
