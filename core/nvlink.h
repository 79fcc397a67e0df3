/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nvlink.h - NVLink topology from nvidia-smi (docs/formats.md section 9).
 *
 * NVLink traffic bypasses PCIe and the IOMMU, so the GPUs of one NVLink set
 * (and the NVSwitches between them) are one assignment unit.  The topology is
 * read with `nvidia-smi topo -m` through core/exec.h while the NVIDIA driver
 * still owns the GPUs; once they are bound to vfio-pci nvidia-smi sees nothing,
 * so the sets are kept in the state file (vw_nvlink_to_string()) and restored
 * from it (vw_nvlink_from_string()).  Under a sysroot the recorded outputs are
 * read instead (.vfiowiz/cmd/<key>, see exec.h).
 *
 * Commands used (their recording keys in parentheses):
 *	nvidia-smi topo -m				(nvidia-smi_topo_-m)
 *	nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader
 *		(nvidia-smi_--query-gpu_index_pci.bus_id_--format_csv_noheader)
 *	nvidia-smi nvlink -s				(nvidia-smi_nvlink_-s)
 *	nvidia-smi topo -p2p rw				(nvidia-smi_topo_-p2p_rw)
 *
 * The parsers take untrusted bytes (a snapshot may be hostile): they never
 * read past len, accept NUL bytes and ANSI escapes, bound every count, and
 * return -EINVAL with a message on anything they cannot make sense of.  All
 * structures are plain data; strings are owned by the structure ("" means
 * unknown, never NULL) and freed by its _done() function.
 */
#ifndef VW_NVLINK_H
#define VW_NVLINK_H

#include "facts.h"
#include "sysroot.h"
#include "vw.h"

#define VW_NVLINK_MAX_COLS 256		/* matrix columns (GPUs + NICs) */
#define VW_NVLINK_MAX_LINKS 64		/* links per GPU */

/* A cell of `nvidia-smi topo -m` (its legend). */
enum vw_link_kind {
	VW_LINK_UNKNOWN = 0,	/* a token we do not know (text says which) */
	VW_LINK_SELF,		/* X */
	VW_LINK_NVLINK,		/* NV#: a bonded set of # NVLinks */
	VW_LINK_PIX,		/* at most one PCIe bridge */
	VW_LINK_PXB,		/* several PCIe bridges, no host bridge */
	VW_LINK_PHB,		/* through a PCIe host bridge */
	VW_LINK_NODE,		/* between host bridges of one NUMA node */
	VW_LINK_SYS,		/* across NUMA nodes (QPI/UPI) */
	VW_LINK_SOC,		/* older drivers' name for SYS */
};

struct vw_topo_cell {
	enum vw_link_kind kind;
	int links;		/* NV#: #; 0 otherwise */
	char text[8];		/* the token as printed (truncated), "" none */
};

/* The GPU part of `nvidia-smi topo -m` (NIC rows and columns are counted,
 * not kept). */
struct vw_nvlink_topo {
	size_t ngpus;
	int *gpu;			/* ngpus nvidia-smi indexes (the n of "GPUn"), column order */
	struct vw_topo_cell *cell;	/* ngpus * ngpus, row-major: [i * ngpus + j] */
	char **cpu_affinity;		/* per GPU: "0-31", "" when not printed */
	char **numa_affinity;		/* per GPU: "0", "N/A", "" */
	size_t nnics;			/* NIC columns (NIC0, mlx5_0, ...) */
};

/* Parse `nvidia-smi topo -m` output.  Fills *out (zeroed first; free with
 * vw_nvlink_topo_done() in every case).  Returns 0, or -EINVAL when no GPU
 * matrix is found or it is malformed (err says why, quoting nvidia-smi's own
 * message when it printed one instead of a matrix). */
int vw_nvlink_parse_topo(const char *text, size_t len, struct vw_nvlink_topo *out,
			 struct vw_err *err);
void vw_nvlink_topo_done(struct vw_nvlink_topo *t);
/* Position of GPU index gpu in t, or -1. */
int vw_nvlink_topo_pos(const struct vw_nvlink_topo *t, int gpu);
/* Cell between positions i and j (both < ngpus). */
const struct vw_topo_cell *vw_nvlink_topo_cell(const struct vw_nvlink_topo *t, size_t i, size_t j);
/* "NV18", "SYS", "X", ... as printed; "?" for unknown kinds with no text. */
const char *vw_topo_cell_name(const struct vw_topo_cell *c);

/* `nvidia-smi topo -p2p rw`: the peer-to-peer status matrix. */
enum vw_p2p_status {
	VW_P2P_UNKNOWN = 0,	/* a token we do not know */
	VW_P2P_SELF,		/* X */
	VW_P2P_OK,		/* OK */
	VW_P2P_CNS,		/* chipset not supported */
	VW_P2P_GNS,		/* GPU not supported */
	VW_P2P_TNS,		/* topology not supported */
	VW_P2P_NS,		/* not supported */
	VW_P2P_U,		/* nvidia-smi itself says unknown (U) */
};

struct vw_p2p {
	size_t ngpus;
	int *gpu;			/* nvidia-smi indexes, column order */
	enum vw_p2p_status *st;		/* ngpus * ngpus, row-major */
};

int vw_nvlink_parse_p2p(const char *text, size_t len, struct vw_p2p *out, struct vw_err *err);
void vw_p2p_done(struct vw_p2p *p);
/* Stable token: "X", "OK", "CNS", "GNS", "TNS", "NS", "U", "?" (unknown). */
const char *vw_p2p_name(enum vw_p2p_status s);
/* True when every pair of distinct GPUs says OK (and there are >= 2). */
bool vw_p2p_all_ok(const struct vw_p2p *p);

/* `nvidia-smi nvlink -s`: per-link speed of each GPU. */
struct vw_nvlink_links {
	int gpu;		/* nvidia-smi index */
	char *name;		/* "NVIDIA H200", "" unknown */
	size_t nlinks;		/* links listed */
	size_t nactive;		/* links with a speed */
	double *gbps;		/* nlinks speeds in GB/s, < 0 for an inactive link */
	bool all_inactive;	/* nvidia-smi said "all links are inactive" */
};

struct vw_nvlink_status {
	struct vw_nvlink_links *gpus;
	size_t ngpus;
};

int vw_nvlink_parse_status(const char *text, size_t len, struct vw_nvlink_status *out,
			   struct vw_err *err);
void vw_nvlink_status_done(struct vw_nvlink_status *s);
/* Slowest active link of g in GB/s, 0 when none is active. */
double vw_nvlink_links_min_speed(const struct vw_nvlink_links *g);

/* `nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader`. */
struct vw_gpu_busid {
	int gpu;		/* nvidia-smi index */
	char addr[16];		/* "0000:00:06.0", lowercase, 4-digit domain */
};

/* Parse the CSV.  *out is an array of *n entries (caller frees).  Returns 0
 * or -EINVAL (err set, *out NULL). */
int vw_nvlink_parse_busids(const char *text, size_t len, struct vw_gpu_busid **out,
			   size_t *n, struct vw_err *err);
/* Normalise a PCI address ("00000000:3B:00.0", "3b:00.0", "0000:3b:00.0")
 * into out ("0000:3b:00.0"; a domain above ffff, as VMD makes, gives five
 * digits: "10000:e0:06.0").  Domains above fffff are refused.  Returns 0 or
 * -EINVAL. */
int vw_pci_addr_normalize(const char *in, char out[16]);

/* NVLink sets: what the assignment unit needs. */
enum vw_nvlink_source {
	VW_NVLINK_NONE = 0,	/* nothing known: no NVIDIA GPU, or no way to ask */
	VW_NVLINK_PROBED,	/* nvidia-smi ran on this host */
	VW_NVLINK_RECORDED,	/* read from the sysroot's recorded outputs */
	VW_NVLINK_STATE,	/* restored from the state file */
	VW_NVLINK_INFERRED,	/* guessed: NVSwitches present, topology unknown */
};

struct vw_nvlink_set {
	char **addrs;		/* n PCI addresses, sorted: GPUs and NVSwitches */
	size_t n;
	int links;		/* fewest NV# between two GPUs of the set, 0 unknown */
};

struct vw_nvlink {
	enum vw_nvlink_source source;
	bool order_guessed;	/* GPU indexes mapped to addresses by address order */
	struct vw_nvlink_set *sets;	/* disjoint, sorted by first address */
	size_t nsets;
	char **notes;		/* translated: what could not be learnt, and why */
	size_t nnotes;
};

/* Learn the NVLink sets of the host under sr: run (or replay) nvidia-smi
 * topo -m and the bus-id query, map GPU indexes to the PCI addresses of f,
 * and attach the NVSwitches of f (role nvswitch).  Never fails for a missing
 * or broken nvidia-smi: the result then has source NONE (or INFERRED when f
 * holds NVSwitches, all NVIDIA GPUs and switches forming one set) and notes
 * say why.  Returns 0; *nl is zeroed first (free with vw_nvlink_done()). */
int vw_nvlink_probe(struct vw_nvlink *nl, const struct vw_sysroot *sr,
		    const struct vw_facts *f, struct vw_err *err);

/* Build the sets from parsed data: map[] (n entries, may be NULL to use the
 * order of f's NVIDIA GPUs) and f's NVSwitches.  Used by vw_nvlink_probe();
 * exposed for tests.  *nl must be zeroed (or hold only notes): sets and
 * notes are added to it.  Returns 0 or -EINVAL when the GPUs cannot be
 * mapped. */
int vw_nvlink_build(struct vw_nvlink *nl, const struct vw_nvlink_topo *t,
		    const struct vw_gpu_busid *map, size_t n, const struct vw_facts *f,
		    struct vw_err *err);
void vw_nvlink_done(struct vw_nvlink *nl);

/* The set that holds addr, or NULL. */
const struct vw_nvlink_set *vw_nvlink_set_of(const struct vw_nvlink *nl, const char *addr);

/* State file form: sets separated by one space, a set's addresses joined by
 * ',', then "/NV<links>" when the link count is known:
 *	"0000:18:00.0,0000:2a:00.0/NV18 0000:9a:00.0,0000:ab:00.0/NV4"
 * "" when there is no set.  Caller frees. */
char *vw_nvlink_to_string(const struct vw_nvlink *nl);
/* Parse that form into *nl (zeroed first, source STATE).  Returns 0 or
 * -EINVAL (bad address, a set of fewer than two members, an address in two
 * sets) with err set. */
int vw_nvlink_from_string(struct vw_nvlink *nl, const char *s, struct vw_err *err);

const char *vw_nvlink_source_name(enum vw_nvlink_source s);	/* "none", "probed", ... */

#endif
