/* SPDX-License-Identifier: GPL-2.0-or-later */
/* facts.h - what the probes learn about a host, as plain data.
 *
 * One struct vw_facts holds everything; it has no library pointers inside, so
 * it can be copied, compared in tests and dumped as JSON.  Strings are owned
 * by the struct (freed by vw_facts_done()); "" means unknown, never NULL.
 * Indexes (parent, gpu, group) refer to the arrays in the same struct; -1
 * means none.
 */
#ifndef VW_FACTS_H
#define VW_FACTS_H

#include "backends.h"
#include "sysroot.h"
#include "vw.h"

enum vw_cpu_vendor { VW_CPU_UNKNOWN, VW_CPU_INTEL, VW_CPU_AMD, VW_CPU_OTHER };

struct vw_cpu {
	enum vw_cpu_vendor vendor;
	char *vendor_id;	/* "GenuineIntel" */
	char *model;		/* "AMD Ryzen 9 5950X 16-Core Processor" */
	bool vmx, svm;		/* virtualization extension in the flags */
	bool virt_disabled_by_bios;	/* evidence the firmware turned it off */
	bool hypervisor;	/* CPUID hypervisor bit: we run in a VM */
	char *hypervisor_name;	/* from DMI when present ("QEMU", "VMware, Inc."), "" otherwise */
	bool dmi_present;
	char *dmi_vendor, *dmi_product;
};

struct vw_container {
	bool inside;
	char *kind;		/* "docker", "podman", "lxc", "systemd-nspawn", ... */
	char *evidence;		/* the file or line that says so */
};

struct vw_firmware {
	bool efi;
	bool dmar;		/* Intel VT-d table */
	bool ivrs;		/* AMD-Vi table */
};

/* One kernel command-line parameter: "intel_iommu=on" -> key, value. */
struct vw_param {
	char *key;
	char *value;		/* NULL for a bare flag ("quiet") */
};

enum vw_tristate { VW_NO = 0, VW_YES = 1, VW_UNKNOWN = -1 };

struct vw_kernel {
	char *release;		/* "6.1.0-18-amd64" */
	char *version_line;	/* /proc/version */
	unsigned major, minor;
	struct vw_param *params;
	size_t nparams;
	char *cmdline;		/* as read, trimmed */
	bool cmdline_unreadable;	/* proc/cmdline exists but could not be read (too
					   large, I/O error): the parameters are unknown */
	bool config_found;
	char *config_source;	/* "boot/config-6.1.0-18-amd64" or "proc/config.gz" */
	enum vw_tristate intel_default_on;	/* CONFIG_INTEL_IOMMU_DEFAULT_ON */
	enum vw_tristate intel_default_intgpu_off;	/* ..._DEFAULT_ON_INTGPU_OFF */
	enum vw_tristate acs_override_support;	/* kernel carries the patch */
	char *acs_override_evidence;
	bool acs_override_active;	/* pcie_acs_override= given and supported */
	bool vfio_builtin;	/* CONFIG_VFIO_PCI=y */
};

struct vw_iommu {
	char **units;		/* /sys/class/iommu entries: "dmar0", "ivhd0" */
	size_t nunits;
	size_t ngroups;
	enum vw_tristate irq_remap;	/* interrupt remapping, when knowable */
	char *irq_remap_evidence;
	bool cmdline_off;	/* intel_iommu=off, amd_iommu=off or iommu=off */
	bool cmdline_on;	/* intel_iommu=on */
	bool passthrough;	/* iommu=pt or iommu.passthrough=1 */
};

/* Roles of a PCI function, as far as passthrough is concerned. */
enum vw_dev_role {
	VW_ROLE_OTHER = 0,
	VW_ROLE_GPU,		/* display class 0300, 0302, 0380 */
	VW_ROLE_COMPANION,	/* audio/USB/UCSI/... function in a GPU's slot */
	VW_ROLE_NVSWITCH,
	VW_ROLE_BRIDGE,		/* class 06xx: host, PCI, root port, switch port */
};

enum vw_pcie_type {
	VW_PCIE_NONE = -1,	/* conventional PCI, or unknown */
	VW_PCIE_ENDPOINT = 0, VW_PCIE_LEGACY = 1, VW_PCIE_ROOT_PORT = 4,
	VW_PCIE_UPSTREAM = 5, VW_PCIE_DOWNSTREAM = 6, VW_PCIE_PCI_BRIDGE = 7,
	VW_PCIE_PCIE_BRIDGE = 8, VW_PCIE_RC_INTEGRATED = 9, VW_PCIE_RC_EC = 10,
};

/* ACS control bits (PCI_ACS_*). */
#define VW_ACS_SV 0x01
#define VW_ACS_TB 0x02
#define VW_ACS_RR 0x04
#define VW_ACS_CR 0x08
#define VW_ACS_UF 0x10
#define VW_ACS_EC 0x20
#define VW_ACS_DT 0x40

/* What the running host needs a PCI function for (struct vw_pci_dev
 * host_role, a bitmask): giving it to a VM takes that away from the host.
 * The unit (unit.h) refuses such a function unless the matching explicit
 * opt-in of the answers is set (allow_host_storage, ...). */
enum vw_host_role {
	VW_HOST_STORAGE = 1u << 0,	/* holds /, /boot, the ESP, swap, another mounted
					   filesystem, an active md/LVM/ZFS member, or an
					   entry of /etc/fstab */
	VW_HOST_NETWORK = 1u << 1,	/* carries the default route or the SSH session */
	VW_HOST_INPUT = 1u << 2,	/* the USB controller of the only keyboard (not
					   over SSH) */
};

/* One BAR from sysfs `resource` (core/bars.h reads and judges them). */
#define VW_NBARS 6
struct vw_bar {
	uint64_t start, size;	/* size 0: no such BAR */
	unsigned long flags;	/* IORESOURCE_* (VW_RES_* in bars.h) */
	uint64_t resizable;	/* resourceN_resize: bit n = 2^n MiB; 0 none */
	bool log_failed;	/* the kernel said it could not assign it */
};

struct vw_pci_dev {
	char addr[16];		/* "0000:01:00.0" */
	unsigned domain, bus, dev, func;
	unsigned vendor, device;
	bool has_subsys;
	unsigned subvendor, subdevice;
	unsigned class_code;	/* 24 bits: 0x030000 */
	unsigned revision;
	char *vendor_name, *device_name;	/* from pci.ids, "" when unknown */
	char *driver;		/* bound driver, "" when none */
	int group;		/* IOMMU group number, -1 none */
	int parent;		/* index of the upstream bridge, -1 at the root */
	int numa_node;		/* -1 unknown */
	int boot_vga;		/* 1, 0, or -1 when the file is absent */
	char *reset_method;	/* "flr bus", "" when none */
	enum vw_pcie_type pcie_type;
	bool has_acs;		/* extended ACS capability found */
	unsigned acs_cap, acs_ctrl;
	bool config_full;	/* config space beyond 64 bytes was readable */
	bool multifunction;	/* header type bit 7 */
	enum vw_dev_role role;
	int gpu;		/* for companions: index of the GPU of their slot */
	char *note;		/* what went wrong reading it, "" when fine */

	/* SR-IOV and mediated devices (core/sriov.c).  A VF is a unit of its
	 * own: it shares no "slot" with its PF or the other VFs
	 * (vw_dev_same_slot), whatever its address says. */
	bool sriov_cap;		/* SR-IOV extended capability in config space */
	int sriov_total;	/* a PF: sriov_totalvfs; 0 when not a PF */
	int sriov_num;		/* a PF: sriov_numvfs, the VFs enabled now */
	int sriov_autoprobe;	/* a PF: sriov_drivers_autoprobe 1/0, -1 unknown */
	int *vfs;		/* a PF: its enabled VFs (devs indexes), virtfn order */
	size_t nvfs;
	bool vf;		/* a virtual function (physfn link) */
	int physfn;		/* a VF: its PF's index; meaningful only when vf */
	int vf_index;		/* a VF: N of the PF's virtfnN link */
	struct vw_mdev_type *mdev_types;	/* mdev_supported_types, by id */
	size_t nmdev_types;
	char **vgpu_types;	/* NVIDIA vendor-specific VFIO (nvidia/
				   creatable_vgpu_types): "ID NAME" lines,
				   NULL-terminated; NULL when absent */
	char *vgpu_current;	/* nvidia/current_vgpu_type, "" none or absent */
	unsigned host_role;	/* enum vw_host_role bits, 0 when the host does not need it */
	char *host_role_why;	/* translated plain words of what the host loses:
				   "/, /boot/efi (nvme0n1)", "the default route and
				   this SSH session (enp5s0)"; "" when none (hand-made
				   facts may leave it NULL) */
	struct vw_bar bars[VW_NBARS];
};

/* A mediated device type of a parent device (mdev_supported_types/ID). */
struct vw_mdev_type {
	char *id;		/* directory name: "nvidia-558", "i915-GVTg_V5_4" */
	char *name;		/* "GRID A100-4C", "" when absent */
	char *description;	/* one line, "" when absent */
	char *device_api;	/* "vfio-pci" */
	long available;		/* available_instances, -1 unknown */
};

/* A mediated device that exists now (sys/bus/mdev/devices/UUID). */
struct vw_mdev {
	char uuid[37];
	int parent;		/* devs index of its parent, -1 not found */
	char *type;		/* its mdev_type id, "" unknown */
	char *driver;		/* bound driver ("vfio_mdev"), "" none */
};

enum vw_group_verdict {
	VW_GROUP_ISOLATED,	/* only the functions of one slot */
	VW_GROUP_BRIDGES_ONLY,	/* one slot's functions plus bridges: fine */
	VW_GROUP_SHARED,	/* other endpoints too: they must go along */
	VW_GROUP_EMPTY,		/* a group directory with no devices */
};

struct vw_group {
	int id;
	char *type;		/* "DMA", "DMA-FQ", "identity", "" unknown */
	int *devs;		/* indexes into facts->devs, in address order */
	size_t ndevs;
	enum vw_group_verdict verdict;
	char *note;
};

/* enum vw_bootloader and enum vw_initramfs: core/backends.h */

struct vw_distro {
	char *id;		/* os-release ID: "debian" */
	char *id_like;		/* "ubuntu debian" */
	char *version_id;
	char *pretty_name;
	bool proxmox;		/* Proxmox VE (pve-manager present) */
	enum vw_bootloader bootloader;
	char *bootloader_evidence;
	enum vw_initramfs initramfs;
	char *initramfs_evidence;
	bool grub_d;		/* /etc/default/grub.d is read (Debian family) */
	bool driverctl;		/* driverctl installed */
	bool ssh_server;	/* an SSH server installed (sshd, dropbear) */
};

struct vw_facts {
	char *root;		/* the sysroot the facts came from, "" = live host */
	struct vw_cpu cpu;
	struct vw_container container;
	struct vw_firmware fw;
	struct vw_kernel kernel;
	struct vw_iommu iommu;
	struct vw_distro distro;
	struct vw_pci_dev *devs;	/* sorted by address */
	size_t ndevs;
	struct vw_group *groups;	/* sorted by id */
	size_t ngroups;
	struct vw_mdev *mdevs;		/* existing mediated devices, by UUID */
	size_t nmdevs;
	char **notes;		/* host-level problems met while probing */
	size_t nnotes;
	bool over_ssh;		/* the session runs over SSH (see vw_facts_opts) */
	char *ssh_connection;	/* that session, as SSH_CONNECTION says it
				   ("CLIENT-IP CLIENT-PORT SERVER-IP SERVER-PORT"),
				   found through sudo too; NULL none */
	long ram_mib;		/* MemTotal of /proc/meminfo in MiB, 0 unknown */
};

/* Options of the probe. */
struct vw_facts_opts {
	/* The SSH session, in the form of the SSH_CONNECTION variable
	 * ("CLIENT-IP CLIENT-PORT SERVER-IP SERVER-PORT"): its NIC gets
	 * VW_HOST_NETWORK, and input devices are then not the host's only
	 * way in.  NULL: on the live host the environment's SSH_CONNECTION,
	 * under a sysroot the one the snapshot recorded (VW_SSH_FILE), never
	 * the environment (it describes this machine, not the snapshot's).
	 * "" : no SSH session (tests). */
	const char *ssh_connection;
};

/* SSH_CONNECTION of process pid or of its nearest ancestor that has it,
 * from proc/PID/environ and the parent in proc/PID/stat under sr: `sudo`
 * (env_reset), `su -` and doas start vfiowiz without it, while the shell
 * sshd started still has it.  At most 64 steps up; NULL when none (caller
 * frees). */
char *vw_ssh_connection_of(const struct vw_sysroot *sr, long pid);

/* The recorded SSH_CONNECTION of a snapshot, relative to its root. */
#define VW_SSH_FILE ".vfiowiz/ssh_connection"

/* Probe everything under sr into f (zeroed first).  Missing or malformed
 * files never fail the probe: they leave "unknown" values and notes.
 * Returns 0, or a negative code when the root itself cannot be read. */
int vw_facts_probe(struct vw_facts *f, const struct vw_sysroot *sr, struct vw_err *err);
/* The same with options (o may be NULL: defaults). */
int vw_facts_probe_opts(struct vw_facts *f, const struct vw_sysroot *sr,
			const struct vw_facts_opts *o, struct vw_err *err);
void vw_facts_done(struct vw_facts *f);

/* The individual probes (vw_facts_probe calls them in this order). */
void vw_probe_cpu(struct vw_facts *f, const struct vw_sysroot *sr);
void vw_probe_container(struct vw_facts *f, const struct vw_sysroot *sr);
void vw_probe_firmware(struct vw_facts *f, const struct vw_sysroot *sr);
void vw_probe_kernel(struct vw_facts *f, const struct vw_sysroot *sr);
void vw_probe_iommu(struct vw_facts *f, const struct vw_sysroot *sr);
int vw_probe_pci(struct vw_facts *f, const struct vw_sysroot *sr, struct vw_err *err);
/* SR-IOV, mdev types, NVIDIA vGPU types and existing mdevs (core/sriov.c):
 * vw_probe_pci calls it once the functions are read, before roles and
 * groups are worked out (which depend on what is a VF). */
void vw_probe_sriov(struct vw_facts *f, const struct vw_sysroot *sr);
/* Release what vw_probe_sriov added to a function / to the facts. */
void vw_sriov_dev_done(struct vw_pci_dev *d);
void vw_sriov_facts_done(struct vw_facts *f);
void vw_probe_distro(struct vw_facts *f, const struct vw_sysroot *sr);
/* Host roles of the PCI functions (after vw_probe_pci): storage through
 * vw_storage_list() (storage.h), network through proc/net/route,
 * proc/net/ipv6_route and sys/class/net/IF/device, input through
 * proc/bus/input/devices.  Sets f->over_ssh. */
void vw_probe_host_roles(struct vw_facts *f, const struct vw_sysroot *sr,
			 const struct vw_facts_opts *o);
/* "storage", "network", "input": stable names of the bits set in role,
 * joined by ','. Returns buf. */
const char *vw_host_role_names(unsigned role, char *buf, size_t size);

/* Kernel command line: split and read like the kernel does (core/cmdline.h).
 * *params is an array of n entries (caller frees with vw_params_free). */
size_t vw_cmdline_parse(const char *cmdline, struct vw_param **params);
void vw_params_free(struct vw_param *p, size_t n);
/* Value of the last occurrence of key (the kernel's rule), NULL when absent;
 * *present (may be NULL) tells a bare flag from absence. */
const char *vw_cmdline_get(const struct vw_param *p, size_t n, const char *key, bool *present);

/* Name of a device newer than the distribution's pci.ids, NULL if unknown. */
const char *vw_pci_extra_name(unsigned vendor, unsigned device);

/* Lookups. */
int vw_facts_find_dev(const struct vw_facts *f, const char *addr);	/* index or -1 */
const struct vw_group *vw_facts_group(const struct vw_facts *f, int id);
bool vw_dev_is_display(const struct vw_pci_dev *d);	/* class 0300/0302/0380 */
bool vw_dev_is_bridge(const struct vw_pci_dev *d);	/* class 06xx */
bool vw_dev_is_nvswitch(const struct vw_pci_dev *d);
/* A display adapter a hypervisor emulates (QEMU VGA, QXL, virtio-gpu,
 * VMware, VirtualBox, Hyper-V, Cirrus): never a passed-through GPU. */
bool vw_dev_is_emulated(const struct vw_pci_dev *d);
/* True when two functions share bus and device number (the same slot). */
bool vw_dev_same_slot(const struct vw_pci_dev *a, const struct vw_pci_dev *b);

const char *vw_bootloader_name(enum vw_bootloader b);	/* "grub", ... (stable) */
const char *vw_initramfs_name(enum vw_initramfs i);	/* "initramfs-tools", ... */
/* For people (proper names, not translated): "GRUB"; "?" when unknown. */
const char *vw_bootloader_label(enum vw_bootloader b);
const char *vw_initramfs_label(enum vw_initramfs i);
const char *vw_role_name(enum vw_dev_role r);		/* "gpu", ... (stable) */
const char *vw_verdict_name(enum vw_group_verdict v);	/* "isolated", ... */

#endif
