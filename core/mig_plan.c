/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mig_plan.c - the host plan for NVIDIA MIG GPU instances (the mig key).
 *
 * GPU instances live in the GPU until it is reset: nothing on disk makes
 * them, so a oneshot unit of ours runs nvidia-smi at every boot, before
 * the vGPU manager and the hypervisors start, to switch MIG mode on and
 * make the instances that are missing (each with its default compute
 * instance).  It counts what exists first, so a second run makes nothing,
 * and it never destroys an instance: those may belong to someone else. */
#include "hostplan.h"
#include "mig.h"
#include "vmplan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char header[] = "# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.\n";

/* The functions of the script; the per-GPU calls follow them. */
static const char script_head[] =
	"# Run at boot by vfiowiz-mig.service: switch MIG mode on and make the\n"
	"# MIG GPU instances (each with its compute instance) that are missing.\n"
	"# It counts what exists first and never destroys an instance.\n"
	"set -u\n"
	"log() {\n"
	"\techo \"vfiowiz-mig: $*\"\n"
	"}\n"
	"fail() {\n"
	"\techo \"vfiowiz-mig: $*\" >&2\n"
	"\texit 1\n"
	"}\n"
	"command -v nvidia-smi >/dev/null 2>&1 || fail \"nvidia-smi is not installed: no MIG instances\"\n"
	"\n"
	"# mig_on GPU: MIG mode on (a change takes effect only after a GPU reset).\n"
	"mig_on() {\n"
	"\tmode=$(nvidia-smi -i \"$1\" --query-gpu=mig.mode.current --format=csv,noheader 2>&1) ||\n"
	"\t\tfail \"$1: nvidia-smi cannot read its MIG mode: $mode\"\n"
	"\tcase $mode in\n"
	"\tEnabled*) return 0 ;;\n"
	"\tDisabled*) ;;\n"
	"\t*) fail \"$1: no MIG mode ($mode)\" ;;\n"
	"\tesac\n"
	"\tlog \"$1: MIG mode is off: switching it on\"\n"
	"\tnvidia-smi -i \"$1\" -mig 1 || fail \"$1: MIG mode cannot be switched on\"\n"
	"\tmode=$(nvidia-smi -i \"$1\" --query-gpu=mig.mode.current --format=csv,noheader 2>&1)\n"
	"\tcase $mode in\n"
	"\tEnabled*) ;;\n"
	"\t*) fail \"$1: MIG mode is switched on but not active yet: it needs a GPU reset (nvidia-smi -r -i $1, with nothing on the GPU) or a reboot\" ;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"# instances GPU PROFILE CGI WANT: WANT GPU instances of PROFILE on GPU;\n"
	"# CGI names the profile for nvidia-smi mig -cgi.\n"
	"instances() {\n"
	"\tif ! out=$(nvidia-smi mig -i \"$1\" -lgi 2>&1); then\n"
	"\t\tcase $out in\n"
	"\t\t*\"No GPU instances found\"*) out= ;;\n"
	"\t\t*) fail \"$1: nvidia-smi cannot list its GPU instances: $out\" ;;\n"
	"\t\tesac\n"
	"\tfi\n"
	"\thave=$(printf '%s\\n' \"$out\" | grep -cF \" MIG $2 \")\n"
	"\tif [ \"$have\" -ge \"$4\" ]; then\n"
	"\t\tlog \"$1: $have GPU instances of $2 for $4 wanted: nothing to make\"\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tcgi=$3\n"
	"\ti=$((have + 1))\n"
	"\twhile [ \"$i\" -lt \"$4\" ]; do\n"
	"\t\tcgi=$cgi,$3\n"
	"\t\ti=$((i + 1))\n"
	"\tdone\n"
	"\tlog \"$1: making $(($4 - have)) GPU instances of $2\"\n"
	"\tnvidia-smi mig -i \"$1\" -cgi \"$cgi\" -C ||\n"
	"\t\tfail \"$1: nvidia-smi could not make the GPU instances of $2\"\n"
	"}\n"
	"\n";

/* mdevctl starts a defined mdev when its parent appears (udev), which may
 * be before this unit made the GPU instance a MIG-backed type needs: the
 * script starts those still missing once the instances are there. */
static const char script_mdev[] =
	"# mdev_up UUID: start the mdevctl-defined device UUID unless it runs.\n"
	"mdev_up() {\n"
	"\tcommand -v mdevctl >/dev/null 2>&1 || fail \"mdevctl is not installed: the mediated device $1 cannot be made\"\n"
	"\t[ -z \"$(mdevctl list --uuid \"$1\" 2>/dev/null)\" ] || return 0\n"
	"\tlog \"starting the mediated device $1 on its GPU instance\"\n"
	"\tmdevctl start --uuid \"$1\" || fail \"$1: mdevctl could not start the mediated device\"\n"
	"}\n"
	"\n";

/* One GPU and profile with the number of instances the choices ask. */
struct want {
	char gpu[16];
	const char *profile;
	int n;
};

/* Does a vGPU of the choices (mdev or vgpu) sit on dev or one of its
 * VFs?  Only those use a GPU instance of the host. */
static bool backs_vgpu(const struct vw_facts *f, const struct vw_choices *c, int dev)
{
	char *const *lists[] = { c->mdevs, c->vgpus };

	for (size_t l = 0; l < VW_ARRAY_SIZE(lists); l++)
		for (size_t i = 0; lists[l] && lists[l][i]; i++) {
			const char *type;
			char addr[16];
			int d;

			if (!vw_mdev_split(lists[l][i], addr, &type) || (d = vw_facts_find_dev(f, addr)) < 0)
				continue;
			if (d == dev || (f->devs[d].vf && f->devs[d].physfn == dev))
				return true;
		}
	return false;
}

/* The MIG profile of the vGPU type an element of mdevs or vgpus asks
 * ("PARENT=TYPE"), into out; the element's GPU (the PF of a VF) in *gpu.
 * False for a type not backed by MIG or a parent not on this host. */
static bool vgpu_profile(const struct vw_facts *f, const char *s, bool vendor, int *gpu, char out[32])
{
	const struct vw_pci_dev *d;
	const char *type, *name = NULL;
	char addr[16];
	int di;

	if (!vw_mdev_split(s, addr, &type) || (di = vw_facts_find_dev(f, addr)) < 0)
		return false;
	d = &f->devs[di];
	*gpu = d->vf ? d->physfn : di;
	if (!vendor) {
		for (size_t k = 0; k < d->nmdev_types && !name; k++)
			if (!strcmp(d->mdev_types[k].id, type))
				name = d->mdev_types[k].name;
	} else {
		size_t len = strlen(type);

		/* "1004 NVIDIA L40-16C": the id, a blank, the name */
		for (size_t k = 0; d->vgpu_types && d->vgpu_types[k] && !name; k++)
			if (!strncmp(d->vgpu_types[k], type, len) && d->vgpu_types[k][len] == ' ')
				name = d->vgpu_types[k] + len + 1;
	}
	return name && vw_mig_profile_of_type(name, out);
}

/* Each MIG-backed vGPU sits on a GPU instance of its profile: the choices
 * may not ask more of them on a GPU than it has instances of that profile
 * once the unit ran (those asked, or more that exist already).  The room
 * check of the answers counts per function and cannot see this. */
static int check_vgpus_fit(const struct vw_host *h, const struct vw_mig *m, const struct want *w,
			   size_t nw, struct vw_err *err)
{
	const struct vw_facts *f = h->f;
	const struct vw_choices *c = h->c;
	char *const *lists[] = { c->mdevs, c->vgpus };
	char where[300];

	vw_choices_where(c, c->mig_line, where, sizeof(where));
	for (size_t k = 0; k < nw; k++) {
		int gdev = vw_facts_find_dev(f, w[k].gpu), asked = 0, have = 0, gpu;
		const struct vw_mig_gpu *g = vw_mig_gpu_of(m, gdev);
		char prof[32];

		for (size_t l = 0; l < VW_ARRAY_SIZE(lists); l++)
			for (size_t i = 0; lists[l] && lists[l][i]; i++)
				asked += vgpu_profile(f, lists[l][i], l == 1, &gpu, prof) && gpu == gdev &&
					 !strcmp(prof, w[k].profile);
		if (g && m->instances_known)
			have = vw_mig_count(m, g->index, w[k].profile);
		if (asked > (w[k].n > have ? w[k].n : have))
			return vw_err_set(err, -ENOSPC,
					  _("%s%s: the vGPUs of MIG profile %s asked on it: %d; its GPU instances of that profile once the MIG unit ran: %d. Each vGPU needs its own: add one to mig for each, or choose fewer vGPUs"),
					  where, w[k].gpu, w[k].profile, asked, w[k].n > have ? w[k].n : have);
	}
	return 0;
}

static int check_want(struct vw_host *h, const struct vw_mig *m, const struct want *w, int dev,
		      struct vw_err *err)
{
	const struct vw_choices *c = h->c;
	const struct vw_pci_dev *d = &h->f->devs[dev];
	const struct vw_mig_gpu *g;
	const struct vw_mig_profile *p;
	char where[300];
	int have;

	vw_choices_where(c, c->mig_line, where, sizeof(where));
	if (d->vendor != 0x10de || !vw_dev_is_display(d))
		return vw_err_set(err, -ENODEV, _("%s%s is not an NVIDIA GPU: MIG instances are made on NVIDIA GPUs only"),
				  where, w->gpu);
	for (size_t i = 0; i < h->hp->ndevs; i++)
		if (h->hp->devs[i] == dev)
			return vw_err_set(err, -EBUSY,
					  _("%s%s goes to a VM whole, but its MIG instances need it on the host's nvidia driver: choose one or the other"),
					  where, w->gpu);
	g = vw_mig_gpu_of(m, dev);
	if (!g && m->nnotes)
		return vw_err_set(err, -ENODEV, _("%scannot tell whether %s can make MIG instances: %s"), where, w->gpu,
				  m->notes[0]);
	if (!g)
		return vw_err_set(err, -ENODEV,
				  _("%scannot tell whether %s can make MIG instances: nvidia-smi does not list it (it needs NVIDIA's driver bound to it)"),
				  where, w->gpu);
	if (g->current < 0)
		return vw_err_set(err, -ENODEV, _("%s%s cannot make MIG instances: nvidia-smi shows no MIG mode on it"),
				  where, w->gpu);
	/* MIG mode off: the profiles are listed only once it is on; the
	 * unit switches it on, and nvidia-smi checks the profile then. */
	if (g->current == 0)
		return 0;
	p = vw_mig_profile_of(m, g->index, w->profile);
	if (!p) {
		struct vw_buf b = VW_BUF_INIT;
		int r;

		for (size_t i = 0; i < m->nprofiles; i++)
			if (m->profiles[i].gpu == g->index)
				vw_buf_printf(&b, "%s%s", b.len ? ", " : "", m->profiles[i].name);
		r = vw_err_set(err, -ENODEV, _("%s%s has no MIG profile %s; its profiles: %s"), where, w->gpu,
			       w->profile, b.len ? b.data : "-");
		vw_buf_done(&b);
		return r;
	}
	have = m->instances_known ? vw_mig_count(m, g->index, w->profile) : 0;
	if (w->n - have > p->free)
		return vw_err_set(err, -ENOSPC,
				  ngettext("%s%s has room for %d more GPU instance of profile %s (%d made already), and %d are asked for",
					   "%s%s has room for %d more GPU instances of profile %s (%d made already), and %d are asked for",
					   (unsigned long)p->free),
				  where, w->gpu, p->free, w->profile, have, w->n);
	return 0;
}

int vw_mig_plan(struct vw_host *h, struct vw_err *err)
{
	static const char *const post[] = { "systemctl daemon-reload",
					    "systemctl enable vfiowiz-mig.service", NULL };
	const struct vw_facts *f = h->f;
	const struct vw_choices *c = h->c;
	struct vw_buf s = VW_BUF_INIT, u = VW_BUF_INIT;
	struct vw_mig m;
	struct want *w;
	size_t nw = 0;
	bool turns_on = false;
	int r = 0;

	if (!c->nmigs)
		return 0;
	w = vw_xcalloc(c->nmigs, sizeof(*w));
	for (size_t i = 0; i < c->nmigs; i++) {
		char gpu[16];
		const char *profile;
		size_t k;

		if (!vw_mig_split(c->migs[i], gpu, &profile))
			continue;
		for (k = 0; k < nw && (strcmp(w[k].gpu, gpu) || strcmp(w[k].profile, profile)); k++)
			;
		if (k == nw) {
			snprintf(w[nw].gpu, sizeof(w[nw].gpu), "%s", gpu);
			w[nw++].profile = profile;
		}
		w[k].n++;
	}

	vw_mig_probe(&m, h->sr, f);
	for (size_t k = 0; k < nw && r == 0; k++) {
		int d = vw_facts_find_dev(f, w[k].gpu);
		char where[300];

		if (d < 0)
			r = vw_err_set(err, -ENODEV, _("%sno PCI device %s on this host"),
				       vw_choices_where(c, c->mig_line, where, sizeof(where)), w[k].gpu);
		else
			r = check_want(h, &m, &w[k], d, err);
	}
	if (r == 0)
		r = check_vgpus_fit(h, &m, w, nw, err);
	if (r < 0)
		goto out;

	vw_buf_adds(&s, "#!/bin/sh\n");
	vw_buf_adds(&s, header);
	vw_buf_adds(&s, script_head);
	for (size_t k = 0; k < nw; k++) {
		const struct vw_mig_gpu *g = vw_mig_gpu_of(&m, vw_facts_find_dev(f, w[k].gpu));
		const struct vw_mig_profile *p = g ? vw_mig_profile_of(&m, g->index, w[k].profile) : NULL;
		bool first = true;
		char cgi[32];

		for (size_t j = 0; j < k && first; j++)
			first = strcmp(w[j].gpu, w[k].gpu) != 0;
		if (first)
			vw_buf_printf(&s, "mig_on %s\n", w[k].gpu);
		turns_on = turns_on || !g || g->current != 1;
		/* The id when nvidia-smi listed it; else its name, which -cgi
		 * takes as well. */
		if (p)
			snprintf(cgi, sizeof(cgi), "%d", p->id);
		else
			snprintf(cgi, sizeof(cgi), "%s", w[k].profile);
		vw_buf_printf(&s, "instances %s %s %s %d\n", w[k].gpu, w[k].profile, cgi, w[k].n);
	}
	/* The mdevctl definitions of the plan (vw_mdev_plan) on these GPUs. */
	if (!vw_vm_ops_get(c->vm.target)->creates_mdevs) {
		bool head = false;

		for (size_t i = 0; i < c->nmdevs; i++) {
			char parent[16], uuid[37];
			const char *type;
			int d, gpu;
			size_t k;

			if (!vw_mdev_split(c->mdevs[i], parent, &type) || (d = vw_facts_find_dev(f, parent)) < 0)
				continue;
			gpu = f->devs[d].vf ? f->devs[d].physfn : d;
			for (k = 0; k < nw && vw_facts_find_dev(f, w[k].gpu) != gpu; k++)
				;
			if (k == nw)
				continue;
			if (!head)
				vw_buf_adds(&s, script_mdev);
			head = true;
			vw_mdev_uuid(c, i, uuid);
			vw_buf_printf(&s, "mdev_up %s\n", uuid);
		}
	}

	/* Ordering against a unit that is not installed is ignored by
	 * systemd: the list holds for a vGPU driver installed later too. */
	vw_buf_adds(&u, header);
	vw_buf_printf(&u, "[Unit]\n"
			  "Description=vfiowiz: NVIDIA MIG GPU instances for vGPU\n"
			  "After=systemd-modules-load.service nvidia-persistenced.service\n"
			  "Before=nvidia-vgpu-mgr.service vfiowiz-sriov.service libvirtd.service virtqemud.service pve-guests.service\n"
			  "\n"
			  "[Service]\n"
			  "Type=oneshot\n"
			  "RemainAfterExit=yes\n"
			  "ExecStart=/%s\n"
			  "\n"
			  "[Install]\n"
			  "WantedBy=multi-user.target\n", VW_MIG_SCRIPT);

	r = vw_host_put(h, VW_MIG_SCRIPT, s.data, 0755,
			N_("Switch MIG mode on and make the MIG GPU instances at boot, those missing only"), NULL, err);
	if (r >= 0)
		r = vw_host_put(h, VW_MIG_UNIT, u.data, 0644,
				N_("Run the MIG script at every boot, before the vGPU manager and the VMs start"), post, err);
	if (r < 0)
		goto out;
	if (turns_on)
		vw_host_note(h, _("MIG mode is off on a chosen GPU: the unit switches it on, which takes effect only after a GPU reset (nothing may use the GPU) or a reboot; nvidia-smi checks the MIG profiles then."));
	vw_host_note(h, _("The MIG GPU instances are made by a unit of vfiowiz (vfiowiz-mig.service) at every boot, the missing ones only. 'vfiowiz undo' removes the unit; the instances it made stay until the next reboot or GPU reset."));
	for (size_t k = 0; k < nw; k++) {
		bool first = true;

		for (size_t j = 0; j < k && first; j++)
			first = strcmp(w[j].gpu, w[k].gpu) != 0;
		if (first && !backs_vgpu(f, c, vw_facts_find_dev(f, w[k].gpu)))
			vw_host_note(h, _("No vGPU of this plan uses the MIG instances on %s: a GPU instance alone cannot be given to a VM, only a MIG-backed vGPU type on it (mdev or vgpu). Passing the whole GPU to a VM leaves MIG to the guest."),
				     w[k].gpu);
	}
	r = 0;
out:
	vw_mig_done(&m);
	vw_buf_done(&s);
	vw_buf_done(&u);
	free(w);
	return r;
}
