/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mig.c - MIG mode and GPU instance profiles from nvidia-smi (mig.h). */
#include "mig.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

void vw_mig_done(struct vw_mig *m)
{
	free(m->gpus);
	free(m->profiles);
	free(m->instances);
	vw_strv_free(m->notes);
	memset(m, 0, sizeof(*m));
}

static void note(struct vw_mig *m, char *msg)
{
	m->notes = vw_xreallocarray(m->notes, m->nnotes + 2, sizeof(char *));
	m->notes[m->nnotes++] = msg;
	m->notes[m->nnotes] = NULL;
}

static int mode_of(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	if (!strncmp(s, "Enabled", 7))
		return 1;
	if (!strncmp(s, "Disabled", 8))
		return 0;
	return -1;		/* "[N/A]": no MIG on this GPU */
}

/* "0, 00000000:41:00.0, Enabled, Enabled" */
static void parse_query(struct vw_mig *m, const struct vw_facts *f, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[256], bus[64], cur[32], pen[32];
		unsigned dom, b, d, fn;
		int idx;

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = 0;
			if (sscanf(line, "%d , %63[^,], %31[^,], %31[^\n]", &idx, bus, cur, pen) == 4 &&
			    sscanf(bus, " %x:%x:%x.%x", &dom, &b, &d, &fn) == 4 && idx >= 0 && idx < 1024 &&
			    dom <= 0xffff && b <= 0xff && d <= 0x1f && fn <= 7) {
				struct vw_mig_gpu *g;

				m->gpus = vw_xreallocarray(m->gpus, m->ngpus + 1, sizeof(*m->gpus));
				g = &m->gpus[m->ngpus++];
				g->index = idx;
				snprintf(g->addr, sizeof(g->addr), "%04x:%02x:%02x.%x", dom, b, d, fn);
				g->dev = f ? vw_facts_find_dev(f, g->addr) : -1;
				g->current = mode_of(cur);
				g->pending = mode_of(pen);
			}
		}
		p += n + 1;
	}
}

/* "|   0  MIG 1g.10gb       19     7/7        9.50       No     14     0     0   |"
 * (the second line of each profile, "|    1     0     0   |", has no name). */
static void parse_lgip(struct vw_mig *m, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[512], name[32];
		int gpu, id, fr, tot;
		double mem;

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = 0;
			if (sscanf(line, "| %d MIG %31s %d %d/%d %lf", &gpu, name, &id, &fr, &tot, &mem) == 6 &&
			    gpu >= 0 && id >= 0 && fr >= 0 && tot >= fr && tot < 1000 && mem >= 0 && mem < 1e6) {
				struct vw_mig_profile *pr;

				m->profiles = vw_xreallocarray(m->profiles, m->nprofiles + 1, sizeof(*m->profiles));
				pr = &m->profiles[m->nprofiles++];
				pr->gpu = gpu;
				snprintf(pr->name, sizeof(pr->name), "%s", name);
				pr->id = id;
				pr->free = fr;
				pr->total = tot;
				pr->mem_gib = mem;
			}
		}
		p += n + 1;
	}
}

/* "|   0  MIG 3g.40gb          9        2          4:4     |" */
void vw_mig_parse_lgi(struct vw_mig *m, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	m->instances_known = true;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[512], name[32];
		int gpu, prof, id, start, size;

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = 0;
			if (sscanf(line, "| %d MIG %31s %d %d %d:%d", &gpu, name, &prof, &id, &start, &size) == 6 &&
			    gpu >= 0 && gpu < 1024 && prof >= 0 && prof < 1000 && id >= 0 && id < 1000) {
				struct vw_mig_instance *in;

				m->instances = vw_xreallocarray(m->instances, m->ninstances + 1, sizeof(*m->instances));
				in = &m->instances[m->ninstances++];
				in->gpu = gpu;
				snprintf(in->name, sizeof(in->name), "%s", name);
				in->profile = prof;
				in->id = id;
			}
		}
		p += n + 1;
	}
}

const struct vw_mig_profile *vw_mig_profile_of(const struct vw_mig *m, int gpu, const char *name)
{
	for (size_t i = 0; i < m->nprofiles; i++)
		if (m->profiles[i].gpu == gpu && !strcmp(m->profiles[i].name, name))
			return &m->profiles[i];
	return NULL;
}

int vw_mig_count(const struct vw_mig *m, int gpu, const char *name)
{
	int n = 0;

	for (size_t i = 0; i < m->ninstances; i++)
		n += m->instances[i].gpu == gpu && !strcmp(m->instances[i].name, name);
	return n;
}

void vw_mig_parse(struct vw_mig *m, const struct vw_facts *f, const char *query, size_t qlen,
		  const char *lgip, size_t llen)
{
	vw_mig_done(m);
	m->known = true;
	if (query)
		parse_query(m, f, query, qlen);
	if (lgip)
		parse_lgip(m, lgip, llen);
}

int vw_mig_probe(struct vw_mig *m, const struct vw_sysroot *sr, const struct vw_facts *f)
{
	static const char *const qargv[] = { "nvidia-smi",
		"--query-gpu=index,pci.bus_id,mig.mode.current,mig.mode.pending", "--format=csv,noheader", NULL };
	static const char *const largv[] = { "nvidia-smi", "mig", "-lgip", NULL };
	static const char *const iargv[] = { "nvidia-smi", "mig", "-lgi", NULL };
	struct vw_exec_result q = { 0 }, l = { 0 }, g = { 0 };
	struct vw_err e = { 0 };
	bool nvidia = false, any = false;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < f->ndevs; i++)
		nvidia = nvidia || (f->devs[i].vendor == 0x10de && vw_dev_is_display(&f->devs[i]) &&
				    !strcmp(f->devs[i].driver, "nvidia"));
	if (!nvidia)
		return 0;
	if (vw_exec_run(sr, qargv, &q, &e) < 0 || q.status != 0) {
		/* A snapshot taken without the recording: nothing to say. */
		if (e.code == -ENOENT && !vw_sysroot_is_host(sr)) {
			vw_exec_result_done(&q);
			return 0;
		}
		note(m, vw_xasprintf(_("MIG mode is unknown: nvidia-smi did not answer (%s)"),
				     e.code ? e.msg : _("it failed")));
		vw_exec_result_done(&q);
		return 0;
	}
	vw_mig_parse(m, f, q.output, q.len, NULL, 0);
	for (size_t i = 0; i < m->ngpus; i++)
		any = any || m->gpus[i].current == 1;
	/* Profiles only mean something with MIG on. */
	if (any && vw_exec_run(sr, largv, &l, &e) == 0 && l.status == 0)
		parse_lgip(m, l.output, l.len);
	/* With none made, -lgi fails with "No GPU instances found". */
	if (any && vw_exec_run(sr, iargv, &g, &e) == 0 &&
	    (g.status == 0 || strstr(g.output, "No GPU instances found")))
		vw_mig_parse_lgi(m, g.output, g.len);
	vw_exec_result_done(&q);
	vw_exec_result_done(&l);
	vw_exec_result_done(&g);
	return 0;
}

const struct vw_mig_gpu *vw_mig_gpu_of(const struct vw_mig *m, int dev)
{
	for (size_t i = 0; i < m->ngpus; i++)
		if (m->gpus[i].dev == dev && dev >= 0)
			return &m->gpus[i];
	return NULL;
}

void vw_mig_findings(const struct vw_mig *m, const struct vw_facts *f, struct vw_findings *fs)
{
	for (size_t i = 0; i < m->nnotes; i++)
		vw_findings_add(fs, "gpu-mig-unknown", VW_SEV_INFO, vw_xstrdup(m->notes[i]), NULL);
	for (size_t i = 0; i < m->ngpus; i++) {
		const struct vw_mig_gpu *g = &m->gpus[i];
		struct vw_buf b = VW_BUF_INIT;

		(void)f;
		if (g->current == 1) {
			for (size_t k = 0; k < m->nprofiles; k++) {
				const struct vw_mig_profile *p = &m->profiles[k];

				if (p->gpu != g->index)
					continue;
				/* TRANSLATORS: a MIG profile: "1g.10gb (id 19): 7 of 7 free" */
				vw_buf_printf(&b, _("%s%s (id %d): %d of %d free"), b.len ? ", " : "", p->name, p->id,
					      p->free, p->total);
			}
			vw_findings_add(fs, "gpu-mig", VW_SEV_INFO,
					b.len ? vw_xasprintf(_("%s has MIG on; GPU instances it can still make: %s."), g->addr, b.data)
					      : vw_xasprintf(_("%s has MIG on."), g->addr),
					vw_xstrdup(_("Passing the whole GPU to a VM leaves MIG to the guest; MIG instances made on the host back the MIG vGPU types (NVIDIA vGPU).")));
		}
		if (g->pending >= 0 && g->current >= 0 && g->pending != g->current)
			vw_findings_add(fs, "gpu-mig-pending", VW_SEV_WARN,
					vw_xasprintf(g->pending ? _("%s: MIG mode is switched on but not active yet.")
								: _("%s: MIG mode is switched off but still active."),
						     g->addr),
					vw_xstrdup(_("The change takes effect after a GPU reset (nvidia-smi -r, with no process on the GPU) or a reboot.")));
		vw_buf_done(&b);
	}
}

bool vw_mig_profile_of_type(const char *name, char out[32])
{
	const char *p = strrchr(name, ' ') ? strrchr(name, ' ') + 1 : name;
	const char *d1 = strchr(p, '-'), *d2;
	char *end;
	long g, mem;

	if (!d1 || !(d2 = strchr(d1 + 1, '-')))
		return false;
	g = strtol(d1 + 1, &end, 10);
	if (end != d2 || g < 1 || g > 8)
		return false;
	mem = strtol(d2 + 1, &end, 10);
	if (end == d2 + 1 || mem < 1 || mem > 999 || *end != 'C')
		return false;
	if (!strcmp(end, "C"))
		snprintf(out, 32, "%ldg.%ldgb", g, mem);
	else if (!strcmp(end, "CME"))
		snprintf(out, 32, "%ldg.%ldgb+me", g, mem);
	else
		return false;
	return true;
}
