/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guest.c - `vfiowiz guest-check`: the passthrough as the guest sees it. */
#include "guest.h"
#include "bars.h"
#include "exec.h"
#include "hypervisor.h"
#include "json.h"
#include "report.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add(struct vw_guest *g, const char *code, enum vw_severity sev, char *msg, char *remedy)
{
	vw_findings_add(&g->findings, code, sev, msg, remedy);
}

static bool driver_ok(const char *drv)
{
	return *drv && strcmp(drv, "vfio-pci") && strcmp(drv, "pci-stub");
}

/* The NVIDIA kernel module's version: sys/module/nvidia/version, else the
 * "Kernel Module  580.159.04" of proc/driver/nvidia/version. */
static char *nvidia_version(const struct vw_sysroot *sr)
{
	char *v = vw_sysroot_read_line(sr, "sys/module/nvidia/version"), *line, *p;

	if (v && *v)
		return v;
	free(v);
	/* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04
	 * Release Build ...": the first word made of digits and dots. */
	line = vw_sysroot_read_line(sr, "proc/driver/nvidia/version");
	p = line ? strstr(line, "Kernel Module") : NULL;
	while (p && *p) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n && strspn(p, "0123456789.") == n && memchr(p, '.', n) && isdigit((unsigned char)*p)) {
			v = vw_xstrndup(p, n);
			free(line);
			return v;
		}
		p += n;
	}
	free(line);
	return vw_xstrdup("");
}

/* Run one nvidia-smi command; NULL (with *why set, caller frees) when it
 * could not run or failed.  The output is the caller's. */
static char *smi(const struct vw_sysroot *sr, const char *const argv[], size_t *len, char **why)
{
	struct vw_exec_result res;
	struct vw_err e = { 0 };
	char *out = NULL;

	*why = NULL;
	if (vw_exec_run(sr, argv, &res, &e) < 0) {
		*why = vw_xstrdup(e.msg);
	} else if (res.status != 0) {
		char *first = vw_xstrndup(res.output, strcspn(res.output, "\n"));

		*why = vw_xasprintf(_("exit status %d: %s"), res.status, vw_strtrim(first));
		free(first);
	} else {
		out = res.output;
		*len = res.len;
		res.output = NULL;
	}
	vw_exec_result_done(&res);
	return out;
}

static struct vw_guest_gpu *by_index(struct vw_guest *g, int index)
{
	for (size_t i = 0; i < g->ngpus; i++)
		if (g->gpus[i].index == index)
			return &g->gpus[i];
	return NULL;
}

static const char *gpu_name(const struct vw_guest *g, const struct vw_facts *f, int index, char *buf, size_t n)
{
	for (size_t i = 0; i < g->ngpus; i++)
		if (g->gpus[i].index == index) {
			snprintf(buf, n, "GPU%d (%s)", index, f->devs[g->gpus[i].dev].addr);
			return buf;
		}
	snprintf(buf, n, "GPU%d", index);
	return buf;
}

/* nvidia-smi's numbers for the GPUs: from the bus-id query, else by order. */
static void map_indexes(struct vw_guest *g, const struct vw_sysroot *sr, const struct vw_facts *f)
{
	static const char *const argv[] = {
		"nvidia-smi", "--query-gpu=index,pci.bus_id", "--format=csv,noheader", NULL,
	};
	struct vw_gpu_busid *map = NULL;
	size_t len = 0, n = 0;
	char *why = NULL, *out = smi(sr, argv, &len, &why);
	struct vw_err e = { 0 };

	if (out && vw_nvlink_parse_busids(out, len, &map, &n, &e) < 0)
		why = vw_xstrdup(e.msg);
	free(out);
	if (map) {
		for (size_t k = 0; k < n; k++) {
			int dev = vw_facts_find_dev(f, map[k].addr);

			for (size_t i = 0; i < g->ngpus; i++)
				if (g->gpus[i].dev == dev) {
					g->gpus[i].index = map[k].gpu;
					g->gpus[i].seen = true;
				}
		}
		for (size_t i = 0; i < g->ngpus; i++) {
			const struct vw_pci_dev *d = &f->devs[g->gpus[i].dev];

			if (!strcmp(d->driver, "nvidia") && !g->gpus[i].seen)
				add(g, "gpu-not-seen", VW_SEV_WARN,
				    vw_xasprintf(_("%s is bound to the nvidia driver but nvidia-smi does not list it."), d->addr),
				    vw_xstrdup(_("Look at the kernel log (dmesg) for NVRM errors; the GPU may have failed to initialise.")));
		}
		free(map);
		free(why);
		return;
	}
	/* nvidia-smi numbers the GPUs its driver owns by PCI bus id. */
	{
		int k = 0;

		for (size_t i = 0; i < g->ngpus; i++)
			if (!strcmp(f->devs[g->gpus[i].dev].driver, "nvidia"))
				g->gpus[i].index = k++;
	}
	g->order_guessed = true;
	add(g, "gpu-order-guessed", VW_SEV_INFO,
	    vw_xasprintf(_("nvidia-smi's GPU numbers were matched to PCI addresses by order (the bus-id query gave nothing: %s)."),
			 why ? why : "?"),
	    NULL);
	free(why);
}

static void check_links(struct vw_guest *g, const struct vw_facts *f)
{
	struct vw_buf ok = VW_BUF_INIT, bad = VW_BUF_INIT;
	char name[48];
	bool any_links = false;

	for (size_t i = 0; i < g->links.ngpus; i++) {
		struct vw_nvlink_links *l = &g->links.gpus[i];
		struct vw_guest_gpu *gg = by_index(g, l->gpu);
		char speed[32];

		if (gg)
			gg->links = l;
		gpu_name(g, f, l->gpu, name, sizeof(name));
		any_links |= l->nlinks > 0 || l->all_inactive;
		if (l->all_inactive || (l->nlinks && l->nactive == 0)) {
			vw_buf_printf(&bad, "%s", bad.len ? "; " : "");
			vw_buf_printf(&bad, _("%s: all NVLinks inactive"), name);
			continue;
		}
		if (!l->nlinks)
			continue;
		snprintf(speed, sizeof(speed), "%.3f GB/s", vw_nvlink_links_min_speed(l));
		if (l->nactive < l->nlinks) {
			vw_buf_printf(&bad, "%s", bad.len ? "; " : "");
			vw_buf_printf(&bad, _("%s: %zu of %zu links inactive"), name, l->nlinks - l->nactive, l->nlinks);
		} else {
			vw_buf_printf(&ok, "%s", ok.len ? "; " : "");
			vw_buf_printf(&ok, _("%s %zu of %zu active (%s)"), name, l->nactive, l->nlinks, speed);
		}
	}
	if (bad.len)
		add(g, "nvlink-down", VW_SEV_WARN,
		    vw_xasprintf(_("NVLink links down: %s."), bad.data),
		    vw_xstrdup(_("Give the VM every NVLink peer and NVSwitch of the set (vfiowiz keeps them together), and check nvidia-fabricmanager on NVSwitch systems.")));
	if (ok.len)
		add(g, "nvlink-links", VW_SEV_OK, vw_xasprintf(_("NVLink links: %s."), ok.data), NULL);
	if (!any_links)
		add(g, "nvlink-none", VW_SEV_INFO, vw_xstrdup(_("The GPUs report no NVLink links (PCIe only).")), NULL);
	vw_buf_done(&ok);
	vw_buf_done(&bad);
}

static void check_topo(struct vw_guest *g, const struct vw_facts *f)
{
	const struct vw_nvlink_topo *t = &g->topo;
	struct vw_buf pairs = VW_BUF_INIT, missing = VW_BUF_INIT;
	int uniform = -1;
	bool all = true, none = true;

	for (size_t i = 0; i < t->ngpus; i++)
		for (size_t j = i + 1; j < t->ngpus; j++) {
			const struct vw_topo_cell *c = vw_nvlink_topo_cell(t, i, j);
			char a[48], b[48];

			gpu_name(g, f, t->gpu[i], a, sizeof(a));
			gpu_name(g, f, t->gpu[j], b, sizeof(b));
			if (c->kind != VW_LINK_NVLINK) {
				all = false;
				vw_buf_printf(&missing, "%s%s - %s (%s)", missing.len ? ", " : "", a, b,
					      vw_topo_cell_name(c));
				continue;
			}
			none = false;
			uniform = uniform == -1 || uniform == c->links ? c->links : -2;
			vw_buf_printf(&pairs, "%s%s - %s NV%d", pairs.len ? ", " : "", a, b, c->links);
		}
	if (none) {
		bool capable = false;

		for (size_t i = 0; i < g->links.ngpus; i++)
			capable |= g->links.gpus[i].nlinks > 0;
		add(g, "nvlink-topo", capable ? VW_SEV_WARN : VW_SEV_INFO,
		    vw_xstrdup(_("nvidia-smi topo -m shows no NVLink between the GPUs.")),
		    capable ? vw_xstrdup(_("The GPUs have NVLinks: give the VM all NVLink peers and NVSwitches of their set.")) : NULL);
	} else if (all && uniform > 0 && t->ngpus == 2) {
		char a[48], b[48];

		add(g, "nvlink-topo", VW_SEV_OK,
		    vw_xasprintf(_("NVLink: NV%d between %s and %s."), uniform,
				 gpu_name(g, f, t->gpu[0], a, sizeof(a)), gpu_name(g, f, t->gpu[1], b, sizeof(b))),
		    NULL);
	} else if (all && uniform > 0) {
		add(g, "nvlink-topo", VW_SEV_OK,
		    vw_xasprintf(_("NVLink: NV%d between every pair of the %zu GPUs."), uniform, t->ngpus), NULL);
	} else if (all) {
		add(g, "nvlink-topo", VW_SEV_OK, vw_xasprintf(_("NVLink between every pair: %s."), pairs.data), NULL);
	} else {
		add(g, "nvlink-partial", VW_SEV_WARN,
		    vw_xasprintf(_("NVLink: %s; no NVLink between %s."), pairs.data, missing.data),
		    vw_xstrdup(_("Some NVLink peers or NVSwitches may be missing from the VM.")));
	}
	vw_buf_done(&pairs);
	vw_buf_done(&missing);
}

static const char *p2p_text(enum vw_p2p_status s)
{
	switch (s) {
	case VW_P2P_OK: return _("OK");
	case VW_P2P_CNS: return _("chipset not supported");
	case VW_P2P_GNS: return _("GPU not supported");
	case VW_P2P_TNS: return _("topology not supported");
	case VW_P2P_NS: return _("not supported");
	case VW_P2P_U: return _("unknown");
	case VW_P2P_SELF: return "X";
	case VW_P2P_UNKNOWN: break;
	}
	return _("unreadable");
}

static void check_p2p(struct vw_guest *g, const struct vw_facts *f)
{
	const struct vw_p2p *p = &g->p2p;
	struct vw_buf bad = VW_BUF_INIT;

	if (vw_p2p_all_ok(p)) {
		add(g, "p2p", VW_SEV_OK,
		    vw_xasprintf(_("P2P read/write: OK between every pair of the %zu GPUs."), p->ngpus), NULL);
		return;
	}
	for (size_t i = 0; i < p->ngpus; i++)
		for (size_t j = 0; j < p->ngpus; j++) {
			enum vw_p2p_status s = p->st[i * p->ngpus + j];
			char a[48], b[48];

			if (i == j || s == VW_P2P_OK)
				continue;
			vw_buf_printf(&bad, "%s%s -> %s: %s (%s)", bad.len ? ", " : "",
				      gpu_name(g, f, p->gpu[i], a, sizeof(a)), gpu_name(g, f, p->gpu[j], b, sizeof(b)),
				      vw_p2p_name(s), p2p_text(s));
		}
	add(g, "p2p", VW_SEV_WARN, vw_xasprintf(_("P2P read/write is not OK: %s."), bad.data),
	    vw_xstrdup(_("Without NVLink, P2P over PCIe inside a VM usually needs the GPUs behind one virtual PCIe switch; with NVLink, check that every peer is in the VM.")));
	vw_buf_done(&bad);
}

static void check_nvidia(struct vw_guest *g, const struct vw_sysroot *sr, const struct vw_facts *f)
{
	static const char *const links_argv[] = { "nvidia-smi", "nvlink", "-s", NULL };
	static const char *const topo_argv[] = { "nvidia-smi", "topo", "-m", NULL };
	static const char *const p2p_argv[] = { "nvidia-smi", "topo", "-p2p", "rw", NULL };
	struct vw_err e = { 0 };
	char *why = NULL, *out;
	size_t len = 0;

	map_indexes(g, sr, f);
	if (g->nnvidia < 2)
		return;

	out = smi(sr, links_argv, &len, &why);
	if (out && vw_nvlink_parse_status(out, len, &g->links, &e) == 0)
		g->links_known = true;
	else if (out)
		why = vw_xstrdup(e.msg);
	free(out);
	if (!g->links_known) {
		add(g, "nvlink-unknown", VW_SEV_WARN,
		    vw_xasprintf(_("The NVLink link state could not be read (nvidia-smi nvlink -s: %s)."), why), NULL);
		free(why);
		why = NULL;
	}

	out = smi(sr, topo_argv, &len, &why);
	if (out && vw_nvlink_parse_topo(out, len, &g->topo, &e) == 0)
		g->topo_known = true;
	else if (out)
		why = vw_xstrdup(e.msg);
	free(out);
	if (g->topo_known) {
		check_topo(g, f);
	} else {
		add(g, "nvlink-unknown", VW_SEV_WARN,
		    vw_xasprintf(_("The NVLink topology could not be read (nvidia-smi topo -m: %s)."), why), NULL);
		free(why);
		why = NULL;
	}
	if (g->links_known)
		check_links(g, f);

	out = smi(sr, p2p_argv, &len, &why);
	if (out && vw_nvlink_parse_p2p(out, len, &g->p2p, &e) == 0)
		g->p2p_known = true;
	else if (out)
		why = vw_xstrdup(e.msg);
	free(out);
	if (g->p2p_known) {
		check_p2p(g, f);
	} else {
		add(g, "p2p", VW_SEV_WARN,
		    vw_xasprintf(_("The P2P status could not be read (nvidia-smi topo -p2p rw: %s)."), why), NULL);
		free(why);
	}
}

static void add_gpu_lines(struct vw_guest *g, const struct vw_facts *f)
{
	for (size_t i = 0; i < g->ngpus; i++) {
		const struct vw_guest_gpu *gg = &g->gpus[i];
		const struct vw_pci_dev *d = &f->devs[gg->dev];
		char idx[16] = "";
		const char *name = *d->device_name ? d->device_name : _("unknown device");

		if (gg->index >= 0)
			snprintf(idx, sizeof(idx), "GPU%d ", gg->index);
		if (gg->driver_ok)
			add(g, "gpu", VW_SEV_OK,
			    vw_xasprintf(_("%s %s%s (%04x:%04x): driver %s"), d->addr, idx, name,
					 d->vendor, d->device, d->driver),
			    NULL);
		else
			add(g, "gpu-no-driver", VW_SEV_BLOCKER,
			    *d->driver ? vw_xasprintf(_("%s %s (%04x:%04x) is bound to %s: inside the VM it needs its own driver."),
						      d->addr, name, d->vendor, d->device, d->driver)
				       : vw_xasprintf(_("%s %s (%04x:%04x) has no driver bound."),
						      d->addr, name, d->vendor, d->device),
			    vw_xstrdup(d->vendor == 0x10de
				       ? _("Install NVIDIA's driver in the guest (for datacenter GPUs the data center driver), then check 'dmesg' for NVRM errors.")
				       : _("Install the GPU's driver in the guest, then check 'dmesg' for errors.")));
	}
}

/* ---- why a GPU fails, and the fix on this hypervisor --------------------- */

/* Kernel messages of the NVIDIA driver: BAR1 unmapped, RmInitAdapter, Xid. */
struct nvrm_log {
	bool bar_zero;		/* "NVRM: BAR1 is 0M @ 0x0" and the like */
	bool init_failed;	/* "RmInitAdapter failed" */
	char xids[64];		/* "79, 48" */
};

static void read_nvrm(const struct vw_sysroot *sr, struct nvrm_log *l)
{
	const char *argv[] = { "dmesg", NULL };
	struct vw_exec_result res;
	char *line, *save = NULL;

	memset(l, 0, sizeof(*l));
	if (vw_exec_run(sr, argv, &res, NULL) == 0 && res.status == 0) {
		for (line = strtok_r(res.output, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			const char *x;
			unsigned bar, mb, xid;

			if (!strstr(line, "NVRM"))
				continue;
			if ((x = strstr(line, "BAR")) && sscanf(x, "BAR%u is %uM", &bar, &mb) == 2 && mb == 0)
				l->bar_zero = true;
			if (strstr(line, "RmInitAdapter failed") || strstr(line, "rm_init_adapter failed"))
				l->init_failed = true;
			if ((x = strstr(line, "Xid (")) && (x = strstr(x, "): ")) && sscanf(x + 3, "%u", &xid) == 1) {
				char num[16];

				snprintf(num, sizeof(num), "%u", xid);
				if (!strstr(l->xids, num) && strlen(l->xids) + strlen(num) + 3 < sizeof(l->xids))
					snprintf(l->xids + strlen(l->xids), sizeof(l->xids) - strlen(l->xids), "%s%s",
						 *l->xids ? ", " : "", num);
			}
		}
	}
	vw_exec_result_done(&res);
}

static void check_failures(struct vw_guest *g, const struct vw_sysroot *sr, const struct vw_facts *f,
			   const struct vw_hv_info *hv)
{
	struct nvrm_log log;
	uint64_t sum64 = 0;
	bool nvidia = false, fixed = false;	/* the hypervisor's fix given once */

	for (size_t i = 0; i < g->ngpus; i++) {
		sum64 += vw_bars_sum64(f, &g->gpus[i].dev, 1);
		nvidia |= f->devs[g->gpus[i].dev].vendor == 0x10de;
	}
	read_nvrm(sr, &log);
	for (size_t i = 0; i < g->ngpus; i++) {
		const struct vw_pci_dev *d = &f->devs[g->gpus[i].dev];

		for (int b = 0; b < VW_NBARS; b++) {
			char sz[32];

			if (!vw_bar_unassigned(&d->bars[b]))
				continue;
			add(g, "gpu-bar-unassigned", VW_SEV_BLOCKER,
			    vw_xasprintf(_("%s: BAR %d (%s) has no address in the VM: the VM's MMIO window is too small for it (%s)."),
					 d->addr, b, vw_size_text(sz, sizeof(sz), d->bars[b].size), vw_hv_title(hv->hv)),
			    fixed ? NULL : vw_hv_bar_fix(hv->hv, sum64));
			fixed = true;
			break;
		}
		if (!strcmp(d->driver, "nouveau"))
			add(g, "gpu-nouveau", VW_SEV_BLOCKER,
			    vw_xasprintf(_("%s is driven by nouveau, not by NVIDIA's driver: no CUDA, and nvidia-smi sees nothing."), d->addr),
			    vw_xstrdup(_("In the guest: install NVIDIA's driver, blacklist nouveau (echo 'blacklist nouveau' > /etc/modprobe.d/blacklist-nouveau.conf), rebuild the initramfs (update-initramfs -u, or dracut -f) and reboot.")));
	}
	if (nvidia && log.bar_zero)
		add(g, "nvrm-bar-zero", VW_SEV_BLOCKER,
		    vw_xasprintf(_("The nvidia driver found a BAR of 0 MiB (NVRM: BAR1 is 0M): the VM did not map the GPU's memory window (%s)."),
				 vw_hv_title(hv->hv)),
		    fixed ? NULL : vw_hv_bar_fix(hv->hv, sum64));
	fixed |= nvidia && log.bar_zero;
	if (nvidia && log.init_failed)
		add(g, "nvrm-init-failed", VW_SEV_BLOCKER,
		    vw_xasprintf(_("The nvidia driver could not initialise a GPU (NVRM: RmInitAdapter failed) on %s: most often the VM's 64-bit MMIO window or address width is too small for the BARs."),
				 vw_hv_title(hv->hv)),
		    fixed ? NULL : vw_hv_bar_fix(hv->hv, sum64));
	if (nvidia && *log.xids)
		add(g, "nvrm-xid", VW_SEV_WARN,
		    vw_xasprintf(_("The nvidia driver reported Xid errors: %s."), log.xids),
		    vw_xstrdup(_("Look the numbers up in NVIDIA's Xid table; Xid 79 (the GPU fell off the bus) in a VM usually means the host's reset of the GPU or its power management, not the guest.")));
}

int vw_guest_check(struct vw_guest *g, const struct vw_sysroot *sr, const struct vw_facts *f,
		   struct vw_err *err)
{
	bool blocker = false, degraded = false;
	struct vw_hv_info hv;

	(void)err;
	memset(g, 0, sizeof(*g));
	g->nvidia_version = vw_xstrdup("");
	vw_hv_detect(&hv, sr);
	if (hv.hv == VW_HV_NONE && f->cpu.hypervisor && !f->cpu.dmi_present) {
		/* No CPUID leaf recorded, no DMI: a microVM's signature. */
		hv.hv = VW_HV_FIRECRACKER;
		free(hv.evidence);
		hv.evidence = vw_xstrdup("hypervisor CPU flag, no DMI");
	}
	g->hv = hv.hv;
	snprintf(g->hv_cpuid, sizeof(g->hv_cpuid), "%s", hv.cpuid);
	g->hv_evidence = vw_xstrdup(hv.evidence);

	if (f->cpu.hypervisor)
		add(g, "in-vm", VW_SEV_OK,
		    *f->cpu.hypervisor_name ? vw_xasprintf(_("Running inside a VM (%s)."), f->cpu.hypervisor_name)
					    : vw_xstrdup(_("Running inside a VM.")),
		    NULL);
	else
		add(g, "not-a-vm", VW_SEV_INFO,
		    vw_xstrdup(_("This machine does not look like a VM (no hypervisor CPU flag): guest-check is meant to run inside the VM.")),
		    NULL);
	if (hv.hv != VW_HV_NONE)
		add(g, "hypervisor", VW_SEV_INFO,
		    vw_xasprintf(_("Hypervisor: %s (%s)."), vw_hv_title(hv.hv), hv.evidence), NULL);

	for (size_t i = 0; i < f->ndevs; i++) {
		const struct vw_pci_dev *d = &f->devs[i];
		struct vw_guest_gpu *gg;

		if (d->role != VW_ROLE_GPU)
			continue;
		if (vw_dev_is_emulated(d)) {
			g->emulated = vw_xreallocarray(g->emulated, g->nemulated + 1, sizeof(int));
			g->emulated[g->nemulated++] = (int)i;
			continue;
		}
		g->gpus = vw_xreallocarray(g->gpus, g->ngpus + 1, sizeof(*g->gpus));
		gg = &g->gpus[g->ngpus++];
		memset(gg, 0, sizeof(*gg));
		gg->dev = (int)i;
		gg->index = -1;
		gg->driver_ok = driver_ok(d->driver);
		g->nnvidia += !strcmp(d->driver, "nvidia");
	}

	if (!g->ngpus)
		add(g, "no-gpu", VW_SEV_BLOCKER,
		    vw_xstrdup(_("No passed-through GPU is visible in this VM.")),
		    vw_xstrdup(_("Check the VM's configuration on the host (every function of the GPU as a hostdev / hostpci) and that the host bound it to vfio-pci ('vfiowiz check' on the host).")));
	if (g->nnvidia) {
		/* nvidia-smi numbers the GPUs, so it runs before the GPU lines
		 * are written; its findings follow them. */
		struct vw_findings head = g->findings, nv;

		memset(&g->findings, 0, sizeof(g->findings));
		free(g->nvidia_version);
		g->nvidia_version = nvidia_version(sr);
		check_nvidia(g, sr, f);
		nv = g->findings;
		g->findings = head;
		add_gpu_lines(g, f);
		g->findings.v = vw_xreallocarray(g->findings.v, g->findings.n + nv.n + 1, sizeof(*nv.v));
		if (nv.n)	/* memcpy from NULL is undefined, even for 0 bytes */
			memcpy(&g->findings.v[g->findings.n], nv.v, nv.n * sizeof(*nv.v));
		g->findings.n += nv.n;
		free(nv.v);
	} else {
		add_gpu_lines(g, f);
	}
	check_failures(g, sr, f, &hv);
	vw_hv_done(&hv);
	if (g->nemulated)
		add(g, "emulated-display",  VW_SEV_INFO,
		    vw_xasprintf(ngettext("%zu emulated display adapter ignored.",
					  "%zu emulated display adapters ignored.", g->nemulated), g->nemulated),
		    NULL);
	if (f->iommu.ngroups == 0)
		add(g, "no-iommu", VW_SEV_INFO,
		    vw_xstrdup(_("No IOMMU inside the VM: normal for a guest (the host's IOMMU isolates the GPUs).")), NULL);
	else
		add(g, "viommu", VW_SEV_INFO,
		    vw_xasprintf(ngettext("The VM has a virtual IOMMU (%zu group).",
					  "The VM has a virtual IOMMU (%zu groups).", f->iommu.ngroups),
				 f->iommu.ngroups),
		    NULL);

	for (size_t i = 0; i < g->findings.n; i++) {
		blocker |= g->findings.v[i].sev == VW_SEV_BLOCKER;
		degraded |= g->findings.v[i].sev == VW_SEV_WARN || g->findings.v[i].sev == VW_SEV_FIXABLE;
	}
	g->exit_code = blocker ? VW_GUEST_NO_GPU : degraded ? VW_GUEST_DEGRADED : VW_GUEST_OK;
	return 0;
}

void vw_guest_done(struct vw_guest *g)
{
	free(g->gpus);
	free(g->emulated);
	free(g->nvidia_version);
	free(g->hv_evidence);
	vw_nvlink_topo_done(&g->topo);
	vw_p2p_done(&g->p2p);
	vw_nvlink_status_done(&g->links);
	vw_findings_done(&g->findings);
	memset(g, 0, sizeof(*g));
}

/* ---- reports ------------------------------------------------------------ */

static const char *status_name(int rc)
{
	static const char *const names[] = { "ok", "degraded", "no-gpu" };
	return (unsigned)rc < VW_ARRAY_SIZE(names) ? names[rc] : "no-gpu";
}

void vw_guest_report_text(struct vw_buf *out, const struct vw_guest *g, const struct vw_facts *f)
{
	(void)f;
	vw_buf_printf(out, "%s %zu", _("GPUs:"), g->ngpus);
	if (*g->nvidia_version)
		vw_buf_printf(out, ", %s %s", _("NVIDIA driver"), g->nvidia_version);
	vw_buf_addc(out, '\n');
	if (g->topo_known && g->topo.ngpus >= 2) {
		/* The GPU part of nvidia-smi's matrix. */
		vw_buf_printf(out, "%s\n%8s", _("NVLink (nvidia-smi topo -m):"), "");
		for (size_t j = 0; j < g->topo.ngpus; j++) {
			char col[16];

			snprintf(col, sizeof(col), "GPU%d", g->topo.gpu[j]);
			vw_buf_printf(out, "%-7s", col);
		}
		for (size_t i = 0; i < g->topo.ngpus; i++) {
			char row[16];

			while (out->len && out->data[out->len - 1] == ' ')
				out->data[--out->len] = '\0';
			snprintf(row, sizeof(row), "GPU%d", g->topo.gpu[i]);
			vw_buf_printf(out, "\n  %-6s", row);
			for (size_t j = 0; j < g->topo.ngpus; j++)
				vw_buf_printf(out, "%-7s", vw_topo_cell_name(vw_nvlink_topo_cell(&g->topo, i, j)));
		}
		while (out->len && out->data[out->len - 1] == ' ')
			out->data[--out->len] = '\0';
		vw_buf_addc(out, '\n');
	}
	vw_buf_addc(out, '\n');
	for (size_t i = 0; i < g->findings.n; i++) {
		const struct vw_finding *x = &g->findings.v[i];

		vw_buf_printf(out, "[%s] %s\n", vw_severity_tag(x->sev), x->msg);
		if (*x->remedy)
			vw_buf_printf(out, "       -> %s\n", x->remedy);
	}
	switch (g->exit_code) {
	case VW_GUEST_OK:
		vw_buf_printf(out, "\n%s\n", _("All good: the passed-through GPUs work."));
		break;
	case VW_GUEST_DEGRADED:
		vw_buf_printf(out, "\n%s\n", _("Degraded: the GPUs work, but see the warnings above."));
		break;
	default:
		vw_buf_printf(out, "\n%s\n", _("No usable passed-through GPU."));
		break;
	}
}

void vw_guest_report_json(struct vw_buf *out, const struct vw_guest *g, const struct vw_facts *f)
{
	struct vw_json j;

	vw_json_init(&j, out);
	vw_json_obj_begin(&j, NULL);
	vw_json_str(&j, "schema", "vfiowiz-guest-check/1");
	vw_json_str(&j, "status", status_name(g->exit_code));
	vw_json_int(&j, "exit", g->exit_code);
	vw_json_obj_begin(&j, "vm");
	vw_json_bool(&j, "hypervisor", f->cpu.hypervisor);
	vw_json_str(&j, "hypervisor_name", f->cpu.hypervisor_name);
	vw_json_str(&j, "hypervisor_kind", vw_hv_name(g->hv));
	vw_json_str(&j, "cpuid_vendor", g->hv_cpuid);
	vw_json_str(&j, "hypervisor_evidence", g->hv_evidence ? g->hv_evidence : "");
	vw_json_int(&j, "iommu_groups", (long long)f->iommu.ngroups);
	vw_json_obj_end(&j);
	vw_json_str(&j, "nvidia_driver", g->nvidia_version);
	vw_json_bool(&j, "index_by_order", g->order_guessed);

	vw_json_arr_begin(&j, "gpus");
	for (size_t i = 0; i < g->ngpus; i++) {
		const struct vw_guest_gpu *gg = &g->gpus[i];
		const struct vw_pci_dev *d = &f->devs[gg->dev];

		vw_json_obj_begin(&j, NULL);
		vw_json_str(&j, "address", d->addr);
		vw_json_hex(&j, "vendor_id", d->vendor, 4);
		vw_json_hex(&j, "device_id", d->device, 4);
		vw_json_str(&j, "vendor", d->vendor_name);
		vw_json_str(&j, "device", d->device_name);
		vw_json_str(&j, "driver", d->driver);
		vw_json_bool(&j, "driver_ok", gg->driver_ok);
		if (gg->index >= 0)
			vw_json_int(&j, "index", gg->index);
		else
			vw_json_null(&j, "index");
		if (gg->links) {
			vw_json_obj_begin(&j, "nvlink");
			vw_json_int(&j, "links", (long long)gg->links->nlinks);
			vw_json_int(&j, "active", (long long)gg->links->nactive);
			vw_json_int(&j, "speed_mbps", (long long)(vw_nvlink_links_min_speed(gg->links) * 1000 + 0.5));
			vw_json_obj_end(&j);
		} else {
			vw_json_null(&j, "nvlink");
		}
		vw_json_obj_end(&j);
	}
	vw_json_arr_end(&j);

	vw_json_arr_begin(&j, "emulated_displays");
	for (size_t i = 0; i < g->nemulated; i++)
		vw_json_str(&j, NULL, f->devs[g->emulated[i]].addr);
	vw_json_arr_end(&j);

	if (g->topo_known) {
		vw_json_arr_begin(&j, "nvlink_pairs");
		for (size_t a = 0; a < g->topo.ngpus; a++)
			for (size_t b = a + 1; b < g->topo.ngpus; b++) {
				const struct vw_topo_cell *c = vw_nvlink_topo_cell(&g->topo, a, b);

				vw_json_obj_begin(&j, NULL);
				vw_json_int(&j, "a", g->topo.gpu[a]);
				vw_json_int(&j, "b", g->topo.gpu[b]);
				vw_json_str(&j, "link", vw_topo_cell_name(c));
				vw_json_int(&j, "nvlinks", c->links);
				vw_json_obj_end(&j);
			}
		vw_json_arr_end(&j);
	} else {
		vw_json_null(&j, "nvlink_pairs");
	}
	if (g->p2p_known) {
		vw_json_arr_begin(&j, "p2p");
		for (size_t a = 0; a < g->p2p.ngpus; a++)
			for (size_t b = 0; b < g->p2p.ngpus; b++) {
				if (a == b)
					continue;
				vw_json_obj_begin(&j, NULL);
				vw_json_int(&j, "from", g->p2p.gpu[a]);
				vw_json_int(&j, "to", g->p2p.gpu[b]);
				vw_json_str(&j, "status", vw_p2p_name(g->p2p.st[a * g->p2p.ngpus + b]));
				vw_json_obj_end(&j);
			}
		vw_json_arr_end(&j);
	} else {
		vw_json_null(&j, "p2p");
	}

	vw_json_arr_begin(&j, "findings");
	for (size_t i = 0; i < g->findings.n; i++) {
		vw_json_obj_begin(&j, NULL);
		vw_json_str(&j, "code", g->findings.v[i].code);
		vw_json_str(&j, "severity", vw_severity_name(g->findings.v[i].sev));
		vw_json_str(&j, "message", g->findings.v[i].msg);
		vw_json_str(&j, "remedy", g->findings.v[i].remedy);
		vw_json_obj_end(&j);
	}
	vw_json_arr_end(&j);
	vw_json_obj_end(&j);
}
