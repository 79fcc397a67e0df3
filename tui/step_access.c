/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_access.c - step 6: how the user reaches the guest's desktop from
 * their own computer: VNC on the host through an SSH tunnel, RDP into a
 * Windows guest, xrdp into a Linux guest, and the exact commands. */
#include "wizard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"

enum { T_VNC = 1, T_PASS, T_RDP, T_XRDP, T_PORT, T_ALLOW, T_USER, T_HOST };

struct access {
	struct vw_listdetails ld;	/* first: vw_ld_editing(), vw_ld_step_done() */
};

static void join_allow(struct vw_buf *b, const struct vw_access_choices *a)
{
	for (size_t i = 0; i < a->nallow; i++)
		vw_buf_printf(b, "%s%s", i ? ", " : "", a->allow[i]);
	if (!b->data)
		vw_buf_add(b, "", 0);
}

static struct vw_item *field(struct access *p, int tag, const char *label, const char *v, size_t max, bool mask)
{
	struct vw_item *it = vw_list_add(&p->ld.list, VW_ITEM_FIELD, tag, label);

	vw_field_done(&it->field);
	vw_field_init(&it->field, v, max, mask);
	return it;
}

static void build_list(struct access *p, const struct vw_ctx *ctx)
{
	const struct vw_access_choices *a = &ctx->ch->access;
	bool libvirt = vw_vm_ops_get(ctx->ch->vm.target)->host_vnc, win = ctx->ch->vm.guest_os == VW_GUEST_WINDOWS;
	/* first visit: on the first way in this VM can have (VNC is libvirt's) */
	int keep = vw_list_current(&p->ld.list) ? vw_list_current(&p->ld.list)->tag
		   : libvirt ? T_VNC : win ? T_RDP : T_XRDP;
	struct vw_buf b = VW_BUF_INIT;
	struct vw_item *it;
	char port[16];

	vw_list_clear(&p->ld.list);
	it = vw_list_add(&p->ld.list, VW_ITEM_CHECK, T_VNC, _("VNC on the host: 127.0.0.1, through an SSH tunnel"));
	it->on = a->vnc && libvirt;
	it->disabled = !libvirt;
	if (!libvirt)
		vw_item_note(it, _("libvirt only"));
	if (it->on)
		/* longer than VNC takes, so that too long is said, not cut */
		field(p, T_PASS, _("VNC password (1 to 8 characters)"), a->vnc_password, 64, true);
	it = vw_list_add(&p->ld.list, VW_ITEM_CHECK, T_RDP, _("Remote Desktop in the Windows guest"));
	it->on = a->rdp && win;
	it->disabled = !win;
	if (!win)
		vw_item_note(it, _("Windows guests"));
	it = vw_list_add(&p->ld.list, VW_ITEM_CHECK, T_XRDP, _("xrdp in the Linux guest"));
	it->on = a->xrdp && !win;
	it->disabled = win;
	if (win)
		vw_item_note(it, _("Linux guests"));
	if ((a->rdp && win) || (a->xrdp && !win)) {
		snprintf(port, sizeof(port), "%ld", a->rdp_port);
		field(p, T_PORT, _("RDP port in the guest"), port, 5, false);
	}
	join_allow(&b, a);
	field(p, T_ALLOW, _("Allowed addresses (comma-separated)"), b.data, 1024, false);
	vw_buf_done(&b);
	field(p, T_USER, _("Your account on this host"), a->ssh_user, 64, false);
	field(p, T_HOST, _("This host's name or address"), a->ssh_host, 255, false);
	vw_list_align(&p->ld.list);
	vw_list_select(&p->ld.list, keep);
	vw_ld_stale(&p->ld);
}

static void fill_details(struct access *p, const struct vw_ctx *ctx)
{
	struct vw_item *it;
	struct vw_text *t = &p->ld.details;
	struct vw_buf b = VW_BUF_INIT;
	int tag;

	if (!vw_ld_follow(&p->ld, ctx, &it))
		return;
	tag = it ? it->tag : -1;
	switch (tag) {
	case T_VNC:
	case T_PASS:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("libvirt serves the VM's emulated display by VNC on the host's loopback address only, "
			      "with a password (libvirt allows at most 8 characters); you reach it through an SSH "
			      "tunnel. The password is written only to the domain document, mode 0600."));
		break;
	case T_RDP:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("A PowerShell script to run in the guest: it turns Remote Desktop on with Network "
			      "Level Authentication and opens the firewall to the allowed addresses only."));
		break;
	case T_XRDP:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("A shell script to run in the guest: it installs xrdp; with no allowed addresses it "
			      "listens on the guest's loopback only, reached through SSH."));
		break;
	case T_PORT:
		vw_text_add(t, VW_C_NORMAL, 0, _("3389 unless you changed it in the guest."));
		break;
	case T_ALLOW:
		vw_text_add(t, VW_C_NORMAL, 0,
			    _("IPv4 or IPv6 addresses or networks (192.0.2.10, 198.51.100.0/24) that may connect. "
			      "Empty: none from outside; the guest is reached through an SSH tunnel via this host."));
		break;
	default:
		vw_text_add(t, VW_C_NORMAL, 0, _("Used to write the exact tunnel commands below."));
		break;
	}
	vw_text_add(t, VW_C_NORMAL, 0, "");
	vw_access_connect_text(&b, ctx->ch, NULL, NULL);
	if (b.data) {
		const char *s = b.data;
		bool first = true;

		while (*s) {
			size_t n = strcspn(s, "\n");
			char *line = vw_xstrndup(s, n);

			bool cmd = !strncmp(line, "  ", 2) && line[2] >= 'a' && line[2] <= 'z';

			vw_text_add(t, first ? VW_C_HEADING : cmd ? VW_C_INFO : VW_C_NORMAL, 4, line);
			first = false;
			free(line);
			s += n;
			if (*s)
				s++;
		}
	} else {
		vw_text_add(t, VW_C_DIM, 0, _("No access method is chosen: the guest is reached only on its own screen."));
	}
	vw_buf_done(&b);
}

/* Defaults for the tunnel commands: who and where we are. */
static void default_ssh(struct vw_ctx *ctx)
{
	struct vw_access_choices *a = &ctx->ch->access;
	const char *user = getenv("SUDO_USER");
	/* The session the facts found: sudo drops SSH_CONNECTION (hostrole.c). */
	const char *conn = ctx->facts->ssh_connection;

	if (!*a->ssh_user && !ctx->demo) {
		if (!user || !*user)
			user = getenv("USER");
		if (user && *user) {
			free(a->ssh_user);
			a->ssh_user = vw_xstrdup(user);
		}
	}
	if (!*a->ssh_host) {
		char *host = NULL;

		/* SSH_CONNECTION: client_ip client_port server_ip server_port */
		if (conn && !ctx->demo) {
			char ip[64];

			if (sscanf(conn, "%*s %*s %63s", ip) == 1)
				host = vw_xstrdup(ip);
		}
		if (!host)
			host = vw_sysroot_read_line(ctx->sr, "etc/hostname");
		if (host && *host) {
			free(a->ssh_host);
			a->ssh_host = host;
		} else {
			free(host);
		}
	}
}

static int enter(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct access *p = priv;

	(void)err;
	vw_ld_init(&p->ld);
	default_ssh(ctx);
	build_list(p, ctx);
	return 0;
}

static void draw(void *priv, const struct vw_ctx *ctx, WINDOW *w)
{
	struct access *p = priv;

	fill_details(p, ctx);
	vw_ld_draw(&p->ld, w, NULL, 9);
}

static void set_allow(struct vw_access_choices *a, const char *text)
{
	char *copy = vw_xstrdup(text), *save = NULL;

	vw_strv_free(a->allow);
	a->allow = vw_xcalloc(1, sizeof(char *));
	a->nallow = 0;
	for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		a->allow = vw_xreallocarray(a->allow, a->nallow + 2, sizeof(char *));
		a->allow[a->nallow++] = vw_xstrdup(tok);
		a->allow[a->nallow] = NULL;
	}
	free(copy);
}

static void secret_free(char *s)
{
	if (s)
		memset(s, 0, strlen(s));
	free(s);
}

/* The rules of the answers file (core/answers.c), so the state reads back. */
static bool plain_ok(const char *s, size_t max, const char *extra)
{
	size_t n = strlen(s);

	if (n > max)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr(extra, *s)))
			return false;
	return true;
}

static bool user_ok(const char *s)
{
	return plain_ok(s, 32, "._-");
}

static bool host_ok(const char *s)
{
	return plain_ok(s, 253, "._-:");
}

static bool pass_ok(const char *s)
{
	struct vw_access_choices a = { .vnc_password = (char *)s };

	return !*s || vw_access_vnc_check(&a, NULL) == 0;
}

static enum vw_key_result key(void *priv, struct vw_ctx *ctx, int k)
{
	struct access *p = priv;
	enum vw_wkey r = vw_list_key(&p->ld.list, k);
	struct vw_item *it = vw_list_current(&p->ld.list);
	struct vw_access_choices *a = &ctx->ch->access;
	char *s;

	if (r == VW_W_MOVED && k == ' ' && it && it->disabled && it->note)
		vw_wizard_msg(ctx, VW_C_WARN, "%s", it->note);
	if (r != VW_W_CHANGED || !it)
		return vw_ld_key(&p->ld, r, k);
	s = it->kind == VW_ITEM_FIELD ? vw_field_get(&it->field) : NULL;
	switch (it->tag) {
	case T_VNC: a->vnc = it->on; break;
	case T_RDP: a->rdp = it->on; break;
	case T_XRDP: a->xrdp = it->on; break;
	case T_PASS:
		if (pass_ok(s)) {
			secret_free(a->vnc_password);
			a->vnc_password = s;
			s = NULL;
		}
		break;
	case T_PORT: {
		char *end;
		long v = strtol(s, &end, 10);

		if (end != s && !*end)
			a->rdp_port = v;
		break;
	}
	case T_ALLOW: {
		struct vw_access_choices typed = { 0 };
		bool ok = true;

		set_allow(&typed, s);
		for (size_t i = 0; i < typed.nallow; i++)
			ok &= vw_access_addr_ok(typed.allow[i], NULL);
		if (ok)	/* the choices keep only a valid list */
			set_allow(a, s);
		vw_strv_free(typed.allow);
		break;
	}
	case T_USER:
		if (user_ok(s)) {
			free(a->ssh_user);
			a->ssh_user = s;
			s = NULL;
		}
		break;
	case T_HOST:
		if (host_ok(s)) {
			free(a->ssh_host);
			a->ssh_host = s;
			s = NULL;
		}
		break;
	default: break;
	}
	if (s) {
		memset(s, 0, strlen(s));
		free(s);
	}
	vw_wizard_changed(ctx);
	if (it->kind == VW_ITEM_CHECK)
		build_list(p, ctx);
	vw_ld_stale(&p->ld);
	return VW_KEY_HANDLED;
}

static enum vw_leave_result leave(void *priv, struct vw_ctx *ctx, struct vw_err *err)
{
	struct access *p = priv;
	const struct vw_access_choices *a = &ctx->ch->access;
	bool libvirt = vw_vm_ops_get(ctx->ch->vm.target)->host_vnc;
	struct vw_item *it;
	char *s;

	/* The fields as typed: the choices keep only valid text. */
	if (a->vnc && libvirt && (it = vw_list_find(&p->ld.list, T_PASS))) {
		struct vw_access_choices typed = *a;
		int r;

		s = vw_field_get(&it->field);
		typed.vnc_password = s;
		r = *s ? vw_access_vnc_check(&typed, err) : 0;
		secret_free(s);
		if (r < 0) {
			char why[sizeof(err->msg)];

			snprintf(why, sizeof(why), "%s", err->msg);
			vw_list_select(&p->ld.list, T_PASS);
			return vw_leave_error(err, _("VNC password: %s."), why);
		}
	}
	if (a->vnc && libvirt && vw_access_vnc_check(a, err) < 0) {
		vw_list_select(&p->ld.list, T_PASS);
		if (!*a->vnc_password)
			return vw_leave_error(err, _("Type a VNC password (1 to 8 characters), or untick VNC."));
		return VW_LEAVE_ERROR;
	}
	if ((it = vw_list_find(&p->ld.list, T_USER))) {
		bool ok;

		s = vw_field_get(&it->field);
		ok = user_ok(s);
		free(s);
		if (!ok) {
			vw_list_select(&p->ld.list, T_USER);
			return vw_leave_error(err, _("Your account is a user name on this host: letters, "
					      "digits, '.', '_' and '-' (at most 32)."));
		}
	}
	if ((it = vw_list_find(&p->ld.list, T_HOST))) {
		bool ok;

		s = vw_field_get(&it->field);
		ok = host_ok(s);
		free(s);
		if (!ok) {
			vw_list_select(&p->ld.list, T_HOST);
			return vw_leave_error(err, _("This host's name or address: a host name or an IP "
					      "address, without a network mask."));
		}
	}
	if ((a->rdp || a->xrdp) && (a->rdp_port < 1 || a->rdp_port > 65535)) {
		vw_list_select(&p->ld.list, T_PORT);
		return vw_leave_error(err, _("The RDP port is a number from 1 to 65535."));
	}
	if ((it = vw_list_find(&p->ld.list, T_ALLOW))) {	/* as typed */
		struct vw_access_choices typed = { 0 };
		int r = 0;

		s = vw_field_get(&it->field);
		set_allow(&typed, s);
		free(s);
		for (size_t i = 0; i < typed.nallow && !r; i++)
			if (!vw_access_addr_ok(typed.allow[i], NULL)) {
				vw_list_select(&p->ld.list, T_ALLOW);
				r = vw_err_set(err, -EINVAL, _("Not an address or network: %s"), typed.allow[i]);
			}
		vw_strv_free(typed.allow);
		if (r < 0)
			return VW_LEAVE_ERROR;
	}
	return VW_LEAVE_DONE;
}

static const struct vw_keyhint keys[] = {
	{ N_("Space"), N_("tick") },
	{ N_("PgUp PgDn"), N_("details") },
	{ NULL, NULL },
};

const struct vw_step_ops vw_step_access = {
	.id = "access",
	.title = N_("Guest access"),
	.help = N_("A guest whose display is a real GPU shows its desktop on a monitor plugged into that "
		   "card. To see it from elsewhere: VNC on the host for the VM's emulated display (libvirt; "
		   "loopback only, with a password, through an SSH tunnel), Remote Desktop inside a Windows "
		   "guest, or xrdp inside a Linux guest, open only to the addresses you allow.\n\n"
		   "The details show the exact commands to run on your own computer."),
	.keys = keys,
	.priv_size = sizeof(struct access),
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.done = vw_ld_step_done,
	.editing = vw_ld_editing,
};
