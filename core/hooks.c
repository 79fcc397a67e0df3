/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hooks.c - libvirt hooks for gpu_mode = dynamic (see hooks.h). */
#include "hooks.h"
#include "vmplan.h"
#include "template.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NVIDIA's modules keep the GPU busy after the unbind: unloaded in this
 * order, loaded back in the reverse one. */
static const char nvidia_unload[] = "nvidia_drm nvidia_modeset nvidia_uvm nvidia";

static bool member(const int *devs, size_t n, size_t i)
{
	for (size_t k = 0; k < n; k++)
		if (devs[k] == (int)i)
			return true;
	return false;
}

/* The modules to unload: NVIDIA's, when a function of the unit uses them
 * and nothing outside the unit does. */
static const char *unload_list(const struct vw_facts *f, const int *devs, size_t n)
{
	bool ours = false;

	for (size_t i = 0; i < f->ndevs; i++) {
		if (strcmp(f->devs[i].driver, "nvidia"))
			continue;
		if (!member(devs, n, i))
			return "";
		ours = true;
	}
	return ours ? nvidia_unload : "";
}

int vw_hooks_script(const struct vw_facts *f, const char *name, const int *devs, size_t n,
		    char **out, struct vw_err *err)
{
	struct vw_buf addrs = VW_BUF_INIT, b = VW_BUF_INIT;
	char *text = NULL, *unit, timeout[16];
	size_t len;
	int r;

	*out = NULL;
	for (size_t k = 0; k < n; k++)
		vw_buf_printf(&addrs, "%s%s", k ? " " : "", f->devs[devs[k]].addr);
	/* systemd unit names take no '+'. */
	unit = vw_xasprintf("vfiowiz-restore-%s", name);
	for (char *p = unit; *p; p++)
		if (*p == '+')
			*p = '_';
	snprintf(timeout, sizeof(timeout), "%d", VW_HOOK_TIMEOUT);
	r = vw_template_load("gpu-handover.sh", &text, &len, err);
	if (r == 0) {
		const struct vw_tvar vars[] = {
			{ "NAME", name },
			{ "ADDRESSES", addrs.data ? addrs.data : "" },
			{ "UNLOAD", unload_list(f, devs, n) },
			{ "TIMEOUT", timeout },
			{ "UNIT", unit },
		};

		r = vw_template_expand(&b, text, len, vars, VW_ARRAY_SIZE(vars), "gpu-handover.sh", err);
	}
	if (r == 0)
		*out = vw_buf_steal(&b);
	vw_buf_done(&b);
	vw_buf_done(&addrs);
	free(unit);
	free(text);
	return r;
}

/* Where the dispatcher goes: libvirt's hook file, unless the host has one
 * that is not ours. */
static int dispatcher_path(struct vw_host *h, const char **path, struct vw_err *err)
{
	char *have = NULL;
	int r = vw_host_read(h, VW_HOOK_QEMU, &have, err);

	if (r < 0)
		return r;
	*path = VW_HOOK_QEMU;
	if (have && !strstr(have, "Written by vfiowiz")) {
		*path = VW_HOOK_QEMU_D;
		vw_host_note(h, _("/%s is a hook of this host's own: it is left as it is, and vfiowiz's goes to /%s, which libvirt 6.5 and later run after it. With an older libvirt, call /%s from your hook with the same arguments."),
			     VW_HOOK_QEMU, VW_HOOK_QEMU_D, VW_HOOK_QEMU_D);
	}
	free(have);
	return 0;
}

int vw_hooks_plan(struct vw_host *h, struct vw_err *err)
{
	const struct vw_choices *c = h->c;
	const char *name = c->vm.name, *disp = NULL;
	/* libvirt looks for its hooks when it starts. */
	const char *const restart[] = { "systemctl try-restart libvirtd.service virtqemud.service", NULL };
	const char *const rebuild[] = { h->rebuild, NULL };
	char *text = NULL, *path = NULL, where[300];
	size_t len;
	int r;

	vw_choices_where(c, c->gpu_mode_line, where, sizeof(where));
	if (!vw_vm_ops_get(c->vm.target)->qemu_hooks || !*name)
		return vw_err_set(err, -EINVAL,
				  _("%sgpu_mode = dynamic needs a libvirt VM, whose hooks hand the GPU over: set vm { target = libvirt; name = ... }"),
				  where);
	if (!vw_vm_name_ok(name))
		return vw_err_set(err, -EINVAL,
				  _("'%s' cannot be a domain name here: use letters, digits, '.', '_', '+' and '-' (at most 64)"),
				  name);
	r = dispatcher_path(h, &disp, err);
	if (r < 0)
		return r;
	r = vw_template_load("libvirt-hook-qemu", &text, &len, err);
	if (r == 0)
		r = vw_host_put(h, disp, text, 0755,
				N_("libvirt's QEMU hook: runs vfiowiz's handover script of a domain when it starts and stops"),
				restart, err);
	free(text);
	text = NULL;
	if (r < 0)
		return r;
	r = vw_hooks_script(h->f, name, h->hp->devs, h->hp->ndevs, &text, err);
	if (r < 0)
		return r;
	path = vw_xasprintf("%s/%s", VW_HOOKS_DIR, name);
	r = vw_host_put(h, path, text, 0755,
			N_("Single-GPU handover: the host lets go of the GPU when the VM starts and takes it back when it stops (or when the start fails)"),
			NULL, err);
	free(path);
	free(text);
	if (r < 0)
		return r;

	/* What a static plan left would still take the GPU at boot. */
	if (vw_sysroot_exists(h->sr, VW_MODPROBE_CONF)) {
		r = vw_plan_remove_file(h->plan, h->sr, VW_MODPROBE_CONF,
					N_("gpu_mode = dynamic: vfio-pci no longer takes the GPU at boot"), err);
		if (r > 0 && h->rebuild)
			vw_plan_add_post(h->plan, rebuild[0]);
		if (r < 0)
			return r;
	}
	if (vw_sysroot_exists(h->sr, VW_BIND_SCRIPT)) {
		r = vw_plan_remove_file(h->plan, h->sr, VW_BIND_SCRIPT,
					N_("gpu_mode = dynamic: vfio-pci no longer takes the GPU at boot"), err);
		if (r > 0 && h->rebuild)
			vw_plan_add_post(h->plan, rebuild[0]);
		if (r < 0)
			return r;
	}

	vw_host_note(h, _("gpu_mode = dynamic: the host keeps the GPU until %s starts. Then the hooks stop the display manager and graphical sessions and hand the unit's functions to vfio-pci; when the VM stops (or has not started after %d s) the host gets them back. Nothing binds them at boot. Log: /var/log/vfiowiz/%s.log."),
		     name, VW_HOOK_TIMEOUT, name);
	if (*unload_list(h->f, h->hp->devs, h->hp->ndevs))
		vw_host_note(h, _("The NVIDIA modules are unloaded while the VM runs (they hold the GPU otherwise): CUDA and the NVIDIA driver are unavailable on the host meanwhile."));
	return 0;
}
