/* SPDX-License-Identifier: GPL-2.0-or-later */
/* access.c - the guest-access step: scripts for the guest, the host's VNC
 * allow-list, and the commands to connect (docs/formats.md section 8). */
#include "access.h"
#include "template.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

/* ---- checks ------------------------------------------------------------------ */

int vw_access_vnc_check(const struct vw_access_choices *a, struct vw_err *err)
{
	return vw_vm_vnc_password_check(a->vnc_password, err);
}

/* Canonical form of an allow-list entry (host bits of a prefix cleared,
 * IPv6 compressed), or NULL when it is not an address or a CIDR. */
static char *norm_addr(const char *s, bool *v6)
{
	unsigned char bin[16];
	char addr[INET6_ADDRSTRLEN + 1], out[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	bool six = memchr(s, ':', alen) != NULL;
	long prefix = -1;
	int max = six ? 128 : 32;

	if (alen == 0 || alen >= sizeof(addr))
		return NULL;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(six ? AF_INET6 : AF_INET, addr, bin) != 1)
		return NULL;
	if (slash) {
		char *end;

		if (!isdigit((unsigned char)slash[1]) || strlen(slash + 1) > 3)
			return NULL;
		prefix = strtol(slash + 1, &end, 10);
		if (*end || prefix > max)
			return NULL;
		for (int bit = (int)prefix; bit < max; bit++)
			bin[bit / 8] &= (unsigned char)~(0x80u >> (bit % 8));
	}
	if (!inet_ntop(six ? AF_INET6 : AF_INET, bin, out, sizeof(out)))
		return NULL;
	if (v6)
		*v6 = six;
	if (prefix >= 0 && prefix != max)
		return vw_xasprintf("%s/%ld", out, prefix);
	return vw_xstrdup(out);
}

bool vw_access_addr_ok(const char *s, bool *v6)
{
	char *n = norm_addr(s, v6);

	free(n);
	return n != NULL;
}

static int check_allow(const struct vw_access_choices *a, struct vw_err *err)
{
	for (size_t i = 0; a->allow && a->allow[i]; i++)
		if (!vw_access_addr_ok(a->allow[i], NULL))
			return vw_err_set(err, -EINVAL,
					  _("'%s' in the allow-list is not an IPv4 or IPv6 address or network"),
					  a->allow[i]);
	return 0;
}

/* The allow-list normalised, joined: each entry between pre and post, sep
 * between entries; only v4 or v6 ones when family is 4 or 6 (0: all). */
static char *join_allow(const struct vw_access_choices *a, int family, const char *pre,
			const char *post, const char *sep)
{
	struct vw_buf b = VW_BUF_INIT;
	size_t n = 0;

	vw_buf_adds(&b, "");
	for (size_t i = 0; a->allow && a->allow[i]; i++) {
		bool v6 = false;
		char *s = norm_addr(a->allow[i], &v6);

		if (!s || (family == 4 && v6) || (family == 6 && !v6)) {
			free(s);
			continue;
		}
		vw_buf_printf(&b, "%s%s%s%s", n++ ? sep : "", pre, s, post);
		free(s);
	}
	return vw_buf_steal(&b);
}

/* ---- documents ---------------------------------------------------------------- */

static int expand(struct vw_buf *out, const char *tname, const struct vw_tvar *vars, size_t n,
		  struct vw_err *err)
{
	char *text;
	size_t len;
	int rc = vw_template_load(tname, &text, &len, err);

	if (rc < 0)
		return rc;
	rc = vw_template_expand(out, text, len, vars, n, tname, err);
	free(text);
	return rc;
}

int vw_access_nft_ruleset(struct vw_buf *out, const struct vw_access_choices *a, struct vw_err *err)
{
	char *v4, *v6, *e4, *e6;
	int rc = check_allow(a, err);

	if (rc < 0)
		return rc;
	v4 = join_allow(a, 4, "", "", ", ");
	v6 = join_allow(a, 6, "", "", ", ");
	e4 = *v4 ? vw_xasprintf("\t\telements = { %s }\n", v4) : vw_xstrdup("");
	e6 = *v6 ? vw_xasprintf("\t\telements = { %s }\n", v6) : vw_xstrdup("");
	{
		const struct vw_tvar vars[] = { { "ELEMENTS4", e4 }, { "ELEMENTS6", e6 } };

		rc = expand(out, "nftables-vnc.nft", vars, VW_ARRAY_SIZE(vars), err);
	}
	free(v4);
	free(v6);
	free(e4);
	free(e6);
	return rc;
}

/* What both guest scripts check first: the allow-list and the port. */
static int script_port(const struct vw_access_choices *a, char port[16], struct vw_err *err)
{
	int rc = check_allow(a, err);

	if (rc < 0)
		return rc;
	if (a->rdp_port < 1 || a->rdp_port > 65535)
		return vw_err_set(err, -EINVAL, _("the Remote Desktop port %ld is not between 1 and 65535"),
				  a->rdp_port);
	snprintf(port, 16, "%ld", a->rdp_port);
	return 0;
}

int vw_access_rdp_script(struct vw_buf *out, const struct vw_access_choices *a, bool local_subnet,
			 struct vw_err *err)
{
	char port[16], *allow;
	int rc = script_port(a, port, err);

	if (rc < 0)
		return rc;
	allow = join_allow(a, 0, "'", "'", ", ");
	{
		const struct vw_tvar vars[] = {
			{ "ALLOW", allow }, { "PORT", port },
			{ "LOCALSUBNET", local_subnet ? "$true" : "$false" },
		};

		rc = expand(out, "guest-rdp.ps1", vars, VW_ARRAY_SIZE(vars), err);
	}
	free(allow);
	return rc;
}

int vw_access_xrdp_script(struct vw_buf *out, const struct vw_access_choices *a, bool loopback,
			  bool local_subnet, struct vw_err *err)
{
	char port[16], *allow;
	int rc = script_port(a, port, err);

	if (rc < 0)
		return rc;
	allow = join_allow(a, 0, "", "", " ");
	{
		const struct vw_tvar vars[] = {
			{ "ALLOW", allow }, { "PORT", port }, { "LOOPBACK", loopback ? "1" : "0" },
			{ "LOCALSUBNET", local_subnet ? "1" : "0" },
		};

		rc = expand(out, "guest-xrdp.sh", vars, VW_ARRAY_SIZE(vars), err);
	}
	free(allow);
	return rc;
}

/* ---- the plan ------------------------------------------------------------------ */

void vw_access_info_init(struct vw_access_info *i)
{
	memset(i, 0, sizeof(*i));
	i->notes = vw_xcalloc(1, sizeof(char *));
}

void vw_access_info_done(struct vw_access_info *i)
{
	vw_strv_free(i->notes);
	memset(i, 0, sizeof(*i));
}

static void note(struct vw_access_info *i, const char *fmt, ...) VW_PRINTF(2, 3);
static void note(struct vw_access_info *i, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vw_strv_vaddf(&i->notes, &i->nnotes, fmt, ap);
	va_end(ap);
}

static int put(struct vw_plan *p, const struct vw_sysroot *sr, const char *path, const struct vw_buf *b,
	       mode_t mode, const char *why, const char *const *post, struct vw_err *err)
{
	const struct vw_file_spec spec = {
		.path = path, .data = b->data, .len = b->len, .mode = mode, .why = why, .post = post,
	};

	return vw_plan_add(p, sr, &spec, err);
}

static int plan_nft(struct vw_plan *p, const struct vw_sysroot *sr, const struct vw_access_choices *a,
		    struct vw_access_info *info, struct vw_err *err)
{
	static const char *const unit_post[] = {
		"systemctl daemon-reload", "systemctl enable vfiowiz-vnc-allow.service",
		"systemctl restart vfiowiz-vnc-allow.service", NULL,
	};
	static const char *const nft_post[] = { "systemctl restart vfiowiz-vnc-allow.service", NULL };
	struct vw_buf rules = VW_BUF_INIT, unit = VW_BUF_INIT;
	char *abs = vw_xasprintf("/%s", VW_NFT_FILE);
	const struct vw_tvar vars[] = { { "NFT_FILE", abs } };
	int rc;

	if (!vw_sysroot_exists(sr, "usr/sbin/nft") && !vw_sysroot_exists(sr, "sbin/nft")) {
		note(info, _("nftables is not installed: the allow-list for the VNC ports was left out (install nftables and plan again to get it)."));
		free(abs);
		return 0;
	}
	rc = vw_access_nft_ruleset(&rules, a, err);
	if (rc == 0)
		rc = expand(&unit, "vfiowiz-vnc-allow.service", vars, VW_ARRAY_SIZE(vars), err);
	if (rc == 0)
		rc = put(p, sr, VW_NFT_UNIT, &unit, 0644,
			 N_("systemd unit that loads the VNC allow-list at boot"), unit_post, err);
	if (rc >= 0)
		rc = put(p, sr, VW_NFT_FILE, &rules, 0644,
			 N_("nftables table of ours: only the allow-list may reach the VNC ports"), nft_post,
			 err);
	if (rc >= 0) {
		info->nft = true;
		rc = 0;
	}
	vw_buf_done(&rules);
	vw_buf_done(&unit);
	free(abs);
	return rc;
}

int vw_accessplan_build(struct vw_plan *p, const struct vw_sysroot *sr, const struct vw_facts *f,
			const struct vw_choices *c, const struct vw_vm_info *vm,
			struct vw_access_info *info, struct vw_err *err)
{
	const struct vw_access_choices *a = &c->access;
	enum vw_guest_os os = vm && vm->planned ? vm->guest_os : c->vm.guest_os;
	const struct vw_vm_ops *ops = vw_vm_ops_get(vm && vm->planned ? vm->target : c->vm.target);
	struct vw_buf b = VW_BUF_INIT;
	int rc;

	(void)f;
	vw_access_info_init(info);
	rc = check_allow(a, err);
	if (rc < 0)
		return rc;

	if (a->rdp && os != VW_GUEST_WINDOWS) {
		note(info, _("Remote Desktop is set up by a Windows script; this guest runs Linux: choose xrdp for it."));
	} else if (a->rdp) {
		rc = vw_access_rdp_script(&b, a, ops->nat_guest_net, err);
		if (rc == 0)
			rc = put(p, sr, VW_GUEST_RDP, &b, 0644,
				 N_("PowerShell script that enables Remote Desktop in the Windows guest (copy it into the guest)"),
				 NULL, err);
		vw_buf_done(&b);
		if (rc < 0)
			return rc;
		info->rdp_script = true;
		/* Name a console that exists: the install display, libvirt's
		 * VNC, Proxmox's noVNC on the emulated display, or none. */
		if (vm && vm->planned && !ops->host_vnc && (vm->install_display || a->vnc))
			note(info, _("Copy /%s into the Windows guest and run it there in an elevated PowerShell: powershell -ExecutionPolicy Bypass -File .\\enable-rdp.ps1 (until Remote Desktop works, use Proxmox's console, noVNC in the web interface, or a monitor on the GPU)."),
			     VW_GUEST_RDP);
		else if (vm && vm->planned && (vm->install_display || vm->vnc))
			note(info, _("Copy /%s into the Windows guest and run it there in an elevated PowerShell: powershell -ExecutionPolicy Bypass -File .\\enable-rdp.ps1 (until Remote Desktop works, use the VM's VNC display on the host's 127.0.0.1, see the VM's notes, or a monitor on the GPU)."),
			     VW_GUEST_RDP);
		else
			note(info, _("Copy /%s into the Windows guest and run it there in an elevated PowerShell: powershell -ExecutionPolicy Bypass -File .\\enable-rdp.ps1 (until Remote Desktop works, use a monitor on the GPU: this VM has no console display)."),
			     VW_GUEST_RDP);
		if (a->nallow == 0)
			note(info, _("The allow-list is empty: none from outside; Remote Desktop accepts only the guest's local subnet, which is where the SSH tunnel through this host comes from."));
		else if (ops->nat_guest_net)
			note(info, _("Remote Desktop also accepts the guest's local subnet: behind libvirt's NAT network, that is where the SSH tunnel through the host comes from."));
	}

	if (a->xrdp && os != VW_GUEST_LINUX) {
		note(info, _("xrdp is for Linux guests; this guest runs Windows: choose Remote Desktop for it."));
	} else if (a->xrdp) {
		info->xrdp_loopback = a->nallow == 0;
		rc = vw_access_xrdp_script(&b, a, info->xrdp_loopback, ops->nat_guest_net, err);
		if (rc == 0)
			rc = put(p, sr, VW_GUEST_XRDP, &b, 0755,
				 N_("shell script that installs and enables xrdp in the Linux guest (copy it into the guest)"),
				 NULL, err);
		vw_buf_done(&b);
		if (rc < 0)
			return rc;
		info->xrdp_script = true;
		note(info, _("Copy /%s into the Linux guest and run it there as root: sudo sh ./enable-xrdp.sh"),
		     VW_GUEST_XRDP);
		if (info->xrdp_loopback)
			note(info, _("The allow-list is empty: xrdp listens on the guest's 127.0.0.1 only, reached through an SSH tunnel into the guest."));
	}

	if (a->vnc && !ops->host_vnc) {
		note(info, _("Proxmox's noVNC console shows only the VM's emulated display: the passed-through GPU's output never appears there. Use Remote Desktop (Windows) or xrdp (Linux) inside the guest, or a monitor on the GPU."));
	} else if (a->vnc) {
		rc = vw_access_vnc_check(a, err);
		if (rc < 0)
			return rc;
		if (!vm || !vm->planned)
			note(info, _("VNC is part of the libvirt domain: configure the VM to get it."));
		else if (a->nallow > 0 && (rc = plan_nft(p, sr, a, info, err)) < 0)
			return rc;
		note(info, _("VNC shows the VM's emulated display (firmware, installer, a second screen), not what the GPU draws."));
	}
	return 0;
}

/* ---- connecting ------------------------------------------------------------------ */

void vw_access_connect_text(struct vw_buf *out, const struct vw_choices *c,
			    const struct vw_vm_info *vm, const struct vw_access_info *info)
{
	const struct vw_access_choices *a = &c->access;
	const char *user = a->ssh_user[0] ? a->ssh_user : "USER";
	const char *host = a->ssh_host[0] ? a->ssh_host : "HOST";
	const char *name = vm && vm->name[0] ? vm->name : c->vm.name[0] ? c->vm.name : "NAME";
	const struct vw_vm_ops *ops = vw_vm_ops_get(vm && vm->planned ? vm->target : c->vm.target);
	bool vnc = a->vnc && ops->host_vnc && (!vm || vm->vnc || !vm->planned);
	bool rdp = info ? info->rdp_script : a->rdp;
	bool xrdp = info ? info->xrdp_script : a->xrdp;
	bool loop = info ? info->xrdp_loopback : a->nallow == 0;
	long port = a->rdp_port;
	char direct[64];

	if (!vnc && !rdp && !xrdp)
		return;
	vw_buf_printf(out, "%s\n", _("How to connect from your own computer"));
	if (!a->ssh_user[0] || !a->ssh_host[0])
		vw_buf_printf(out, "  %s\n",
			      _("(replace USER and HOST with your account on this host and its name or address)"));
	if (port == 3389)
		snprintf(direct, sizeof(direct), "GUEST_IP");
	else
		snprintf(direct, sizeof(direct), "GUEST_IP:%ld", port);

	if (vnc) {
		vw_buf_printf(out, "\n%s\n", _("VNC (the VM's emulated display), through an SSH tunnel:"));
		vw_buf_printf(out, "  ssh -N -L 5900:127.0.0.1:5900 %s@%s\n", user, host);
		vw_buf_printf(out, "  vncviewer localhost::5900\n");
		vw_buf_printf(out, "  remmina -c vnc://localhost:5900\n");
		vw_buf_printf(out, "  %s\n", _("The first VM with VNC gets port 5900; on the host, this prints the VM's display (:1 is port 5901):"));
		vw_buf_printf(out, "  virsh vncdisplay %s\n", name);
		vw_buf_printf(out, "  %s\n", _("The viewer asks for the VNC password of the answers."));
	}
	if (rdp || xrdp) {
		const char *what = rdp ? _("Remote Desktop to the Windows guest:") : _("xrdp to the Linux guest:");

		vw_buf_printf(out, "\n%s\n", what);
		if (ops->nat_guest_net) {
			vw_buf_printf(out, "  %s\n", _("The guest sits behind the host on libvirt's NAT network; its address (GUEST_IP) is shown on the host by:"));
			vw_buf_printf(out, "  virsh domifaddr %s\n", name);
		} else {
			vw_buf_printf(out, "  %s\n", _("GUEST_IP is the guest's address on your network (the guest shows it, or Proxmox's Summary page with the guest agent)."));
		}
		if (xrdp && loop) {
			vw_buf_printf(out, "  %s\n", _("xrdp listens on the guest's 127.0.0.1 only: tunnel through the host into the guest's SSH server:"));
			vw_buf_printf(out, "  ssh -N -J %s@%s -L %d:127.0.0.1:%ld GUESTUSER@GUEST_IP\n", user, host,
				      VW_RDP_TUNNEL_PORT, port);
		} else {
			if (!ops->nat_guest_net) {
				vw_buf_printf(out, "  %s\n", _("From your network, directly:"));
				vw_buf_printf(out, "  mstsc /v:%s\n", direct);
				vw_buf_printf(out, "  xfreerdp /v:%s /u:GUESTUSER\n", direct);
				vw_buf_printf(out, "  %s\n", _("From elsewhere, through an SSH tunnel via the host:"));
			} else {
				vw_buf_printf(out, "  %s\n", _("Through an SSH tunnel via the host:"));
			}
			vw_buf_printf(out, "  ssh -N -L %d:GUEST_IP:%ld %s@%s\n", VW_RDP_TUNNEL_PORT, port, user,
				      host);
		}
		vw_buf_printf(out, "  %s\n", _("then, with the tunnel open:"));
		vw_buf_printf(out, "  mstsc /v:localhost:%d\n", VW_RDP_TUNNEL_PORT);
		vw_buf_printf(out, "  xfreerdp /v:localhost:%d /u:GUESTUSER\n", VW_RDP_TUNNEL_PORT);
		vw_buf_printf(out, "  remmina -c rdp://GUESTUSER@localhost:%d\n", VW_RDP_TUNNEL_PORT);
		vw_buf_printf(out, "  %s\n", _("(mstsc on Windows; xfreerdp, or xfreerdp3 with FreeRDP 3, and Remmina on Linux; GUESTUSER is your account in the guest)"));
	}
}
