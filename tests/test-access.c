/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-access.c - the guest-access step: checks, the generated scripts and
 * rule set (golden, sh -n, shellcheck, nft -c where they run), the plan,
 * the secrecy of the VNC password, and the connection commands. */
#include "testutil.h"
#include "access.h"
#include "plan.h"
#include "vmplan.h"
#include "vmfake.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const allow_list[] = { "192.0.2.10", "198.51.100.7/24", "2001:DB8::1/32", NULL };

/* Run a shell command line; its exit status, or -1. */
static int run(const char *cmd)
{
	int st = system(cmd);

	return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

static bool have(const char *prog)
{
	char *cmd = vw_xasprintf("command -v %s >/dev/null 2>&1", prog);
	int rc = run(cmd);

	free(cmd);
	return rc == 0;
}

static char *save_tmp(const char *name, const struct vw_buf *b)
{
	char *dir = tu_mkroot(), *path = vw_xasprintf("%s/%s", dir, name);

	tu_write_bytes(dir, name, b->data, b->len);
	free(dir);
	return path;
}

static void drop_tmp(char *path)
{
	char *dir = vw_xstrndup(path, (size_t)(strrchr(path, '/') - path));

	tu_rmtree(dir);
	free(dir);
	free(path);
}

static void test_addr(void **state)
{
	static const char *const good[] = { "192.0.2.10", "198.51.100.0/24", "10.0.0.0/8", "0.0.0.0/0",
					    "2001:db8::1", "2001:db8::/32", "::1/128", "::ffff:192.0.2.1" };
	static const char *const bad[] = { "", "192.0.2", "192.0.2.256", "192.0.2.1/33", "2001:db8::/129",
					   "10.0.0.0/", "10.0.0.0/-1", "host.example", "1.2.3.4/8x",
					   "'; rm -rf /", "1.2.3.4 5.6.7.8", "2001:db8::1/0032" };
	bool v6;

	(void)state;
	for (size_t i = 0; i < VW_ARRAY_SIZE(good); i++)
		if (!vw_access_addr_ok(good[i], NULL))
			fail_msg("'%s' refused", good[i]);
	for (size_t i = 0; i < VW_ARRAY_SIZE(bad); i++)
		if (vw_access_addr_ok(bad[i], NULL))
			fail_msg("'%s' accepted", bad[i]);
	assert_true(vw_access_addr_ok("2001:db8::1", &v6) && v6);
	assert_true(vw_access_addr_ok("192.0.2.1", &v6) && !v6);
}

static void test_vnc_check(void **state)
{
	struct vw_access_choices a = { .vnc = true };
	struct vw_err err = { 0 };

	(void)state;
	a.vnc_password = "12345678";
	assert_int_equal(vw_access_vnc_check(&a, &err), 0);
	a.vnc_password = "swordfish";
	assert_int_equal(vw_access_vnc_check(&a, &err), -EINVAL);
	/* The reason, never the password. */
	assert_non_null(strstr(err.msg, "9"));
	assert_non_null(strstr(err.msg, "8"));
	assert_null(strstr(err.msg, "swordfish"));
	a.vnc_password = "";
	assert_int_equal(vw_access_vnc_check(&a, &err), -EINVAL);
	a.vnc_password = "a\tb";
	assert_int_equal(vw_access_vnc_check(&a, &err), -EINVAL);
}

static void test_nft(void **state)
{
	struct vw_choices c;
	struct vw_buf b = VW_BUF_INIT;
	struct vw_err err = { 0 };
	const char *const v4only[] = { "192.0.2.10", NULL };

	(void)state;
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_WINDOWS, "x");
	fake_allow(&c, allow_list);
	assert_int_equal(vw_access_nft_ruleset(&b, &c.access, &err), 0);
	/* Host bits cleared, IPv6 in canonical form. */
	assert_non_null(strstr(b.data, "elements = { 192.0.2.10, 198.51.100.0/24 }"));
	assert_non_null(strstr(b.data, "elements = { 2001:db8::/32 }"));
	golden("vnc-allow.nft", b.data, b.len);
	{
		char *path = save_tmp("vnc-allow.nft", &b);
		char *cmd = vw_xasprintf("nft -c -f '%s' 2>&1", path);

		if (!have("nft"))
			print_message("nft is not installed: `nft -c` skipped (apt-get install nftables)\n");
		else if (run("nft -c -f /dev/null >/dev/null 2>&1") != 0)
			print_message("`nft -c` cannot run here (no netlink access): skipped\n");
		else
			assert_int_equal(run(cmd), 0);
		free(cmd);
		drop_tmp(path);
	}
	vw_buf_done(&b);

	/* An allow-list with one family only: the other set stays empty. */
	fake_allow(&c, v4only);
	assert_int_equal(vw_access_nft_ruleset(&b, &c.access, &err), 0);
	assert_null(strstr(b.data, "elements = { }"));
	if (have("nft") && run("nft -c -f /dev/null >/dev/null 2>&1") == 0) {
		char *path = save_tmp("v4.nft", &b), *cmd = vw_xasprintf("nft -c -f '%s'", path);

		assert_int_equal(run(cmd), 0);
		free(cmd);
		drop_tmp(path);
	}
	vw_buf_done(&b);
	vw_choices_done(&c);
}

static void no_leftover_vars(const char *text)
{
	for (const char *p = text; (p = strchr(p, '@')); p++) {
		size_t n = 1;

		while (p[n] >= 'A' && p[n] <= 'Z')
			n++;
		if (n > 1 && p[n] == '@')
			fail_msg("template variable left: %.*s", (int)n + 1, p);
	}
}

static void test_rdp_script(void **state)
{
	struct vw_choices c;
	struct vw_buf b = VW_BUF_INIT;
	struct vw_err err = { 0 };

	(void)state;
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_WINDOWS, "x");
	fake_allow(&c, allow_list);
	assert_int_equal(vw_access_rdp_script(&b, &c.access, false, &err), 0);
	assert_non_null(strstr(b.data, "$AllowList = @('192.0.2.10', '198.51.100.0/24', '2001:db8::/32')"));
	assert_non_null(strstr(b.data, "$Port = 3389"));
	/* The locale-independent group name, never the English display name. */
	assert_non_null(strstr(b.data, "'@FirewallAPI.dll,-28752'"));
	assert_null(strstr(b.data, "-DisplayGroup"));
	assert_non_null(strstr(b.data, "UserAuthentication"));
	assert_non_null(strstr(b.data, "auditpol"));
	no_leftover_vars(b.data);
	/* Windows PowerShell 5.1 reads a file without a BOM in the ANSI code
	 * page: ASCII only. */
	for (size_t i = 0; i < b.len; i++)
		assert_true((unsigned char)b.data[i] < 0x80);
	golden("enable-rdp.ps1", b.data, b.len);
	if (have("pwsh")) {
		char *path = save_tmp("enable-rdp.ps1", &b);
		char *cmd = vw_xasprintf("pwsh -NoProfile -Command '$e = $null; "
					 "[System.Management.Automation.Language.Parser]::ParseFile(\"%s\", "
					 "[ref]$null, [ref]$e) | Out-Null; exit $e.Count'",
					 path);

		assert_int_equal(run(cmd), 0);
		free(cmd);
		drop_tmp(path);
	} else {
		print_message("pwsh is not installed: PowerShell syntax checked by the golden file only\n");
	}
	vw_buf_done(&b);

	/* Another port, and no allow-list: the local subnet. */
	c.access.rdp_port = 3390;
	fake_allow(&c, (const char *const[]){ NULL });
	assert_int_equal(vw_access_rdp_script(&b, &c.access, true, &err), 0);
	assert_non_null(strstr(b.data, "$AllowList = @()"));
	assert_non_null(strstr(b.data, "$Port = 3390"));
	assert_non_null(strstr(b.data, "$AlsoLocalSubnet = $true"));
	golden("enable-rdp-3390.ps1", b.data, b.len);
	vw_buf_done(&b);

	/* A hostile allow-list never reaches the script. */
	fake_allow(&c, (const char *const[]){ "1.2.3.4'); Remove-Item C:\\ -Recurse; ('", NULL });
	assert_int_equal(vw_access_rdp_script(&b, &c.access, false, &err), -EINVAL);
	vw_buf_done(&b);
	vw_choices_done(&c);
}

static void check_shell(const struct vw_buf *b, const char *name)
{
	char *path = save_tmp(name, b), *cmd = vw_xasprintf("sh -n '%s'", path);

	assert_int_equal(run(cmd), 0);
	free(cmd);
	if (have("shellcheck")) {
		cmd = vw_xasprintf("shellcheck -s sh '%s'", path);
		assert_int_equal(run(cmd), 0);
		free(cmd);
	} else {
		print_message("shellcheck is not installed: skipped\n");
	}
	drop_tmp(path);
}

static void test_xrdp_script(void **state)
{
	struct vw_choices c;
	struct vw_buf b = VW_BUF_INIT;
	struct vw_err err = { 0 };

	(void)state;
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_LINUX, "x");
	fake_allow(&c, allow_list);
	assert_int_equal(vw_access_xrdp_script(&b, &c.access, false, true, &err), 0);
	assert_non_null(strstr(b.data, "ALLOW='192.0.2.10 198.51.100.0/24 2001:db8::/32'"));
	assert_non_null(strstr(b.data, "LOOPBACK=0"));
	no_leftover_vars(b.data);
	check_shell(&b, "enable-xrdp.sh");
	golden("enable-xrdp.sh", b.data, b.len);
	vw_buf_done(&b);

	fake_allow(&c, (const char *const[]){ NULL });
	assert_int_equal(vw_access_xrdp_script(&b, &c.access, true, false, &err), 0);
	assert_non_null(strstr(b.data, "LOOPBACK=1"));
	check_shell(&b, "enable-xrdp-loopback.sh");
	vw_buf_done(&b);
	vw_choices_done(&c);
}

/* The nft part of the xrdp script, run for real in a scratch copy: the rule
 * set it writes passes `nft -c`. */
static void test_xrdp_nft_fragment(void **state)
{
	struct vw_choices c;
	struct vw_buf b = VW_BUF_INIT;
	struct vw_err err = { 0 };
	const char *start, *end;
	char *dir, *script, *cmd;

	(void)state;
	if (!have("nft") || run("nft -c -f /dev/null >/dev/null 2>&1") != 0) {
		print_message("`nft -c` cannot run here: skipped\n");
		return;
	}
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_LINUX, "x");
	fake_allow(&c, allow_list);
	assert_int_equal(vw_access_xrdp_script(&b, &c.access, false, true, &err), 0);
	start = strstr(b.data, "\t\tv4='' v6=''");
	end = strstr(b.data, "\t\tnft -c -f");
	assert_non_null(start);
	assert_non_null(end);
	dir = tu_mkroot();
	script = vw_xasprintf("ALLOW='192.0.2.10 198.51.100.0/24 2001:db8::/32'\nPORT=3389\n"
			      "NFT_FILE=%s/allow.nft\n%.*s",
			      dir, (int)(end - start), start);
	tu_write(dir, "frag.sh", script);
	cmd = vw_xasprintf("sh '%s/frag.sh' && nft -c -f '%s/allow.nft.new'", dir, dir);
	assert_int_equal(run(cmd), 0);
	free(cmd);
	free(script);
	tu_rmtree(dir);
	free(dir);
	vw_buf_done(&b);
	vw_choices_done(&c);
}

/* ---- the plan ------------------------------------------------------------ */

struct env {
	char *root;
	struct vw_sysroot *sr;
	struct vw_plan plan;
	struct vw_vm_info vm;
	struct vw_access_info info;
	struct vw_err err;
};

static void env_open(struct env *e, bool nft)
{
	memset(e, 0, sizeof(*e));
	e->root = tu_mkroot();
	tu_mkdir(e->root, "var/lib/libvirt/images");
	tu_write(e->root, "usr/bin/virsh", "");
	if (nft)
		tu_write(e->root, "usr/sbin/nft", "");
	assert_int_equal(vw_sysroot_open(&e->sr, e->root, &e->err), 0);
	vw_plan_init(&e->plan);
	vw_vm_info_init(&e->vm);
	vw_access_info_init(&e->info);
}

static void env_close(struct env *e)
{
	vw_plan_done(&e->plan);
	vw_vm_info_done(&e->vm);
	vw_access_info_done(&e->info);
	vw_sysroot_free(e->sr);
	tu_rmtree(e->root);
	free(e->root);
}

static void build(struct env *e, const struct vw_choices *c, struct fake_host *h)
{
	vw_vm_info_done(&e->vm);
	vw_access_info_done(&e->info);
	if (vw_vmplan_build(&e->plan, e->sr, &h->f, c, &h->u, &e->vm, &e->err) != 0)
		fail_msg("vm: %s", e->err.msg);
	if (vw_accessplan_build(&e->plan, e->sr, &h->f, c, &e->vm, &e->info, &e->err) != 0)
		fail_msg("access: %s", e->err.msg);
}

static bool contains(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(hay + i, needle, n) == 0)
			return true;
	return false;
}

static void test_plan_windows_libvirt(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;
	struct vw_buf text = VW_BUF_INIT;

	(void)state;
	env_open(&e, true);
	fake_turing(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_WINDOWS, "win11");
	fake_set(&c.access.vnc_password, "Pa55w0rd");
	c.access.rdp = true;
	fake_allow(&c, allow_list);
	fake_set(&c.access.ssh_user, "alice");
	fake_set(&c.access.ssh_host, "gpu-box.lan");
	build(&e, &c, &h);

	ch = vw_plan_find(&e.plan, VW_GUEST_RDP);
	assert_non_null(ch);
	assert_int_equal(ch->mode, 0644);
	assert_false(ch->secret);
	assert_true(e.info.rdp_script && e.info.nft);
	assert_non_null(vw_plan_find(&e.plan, VW_NFT_FILE));
	assert_non_null(vw_plan_find(&e.plan, VW_NFT_UNIT));
	assert_null(vw_plan_find(&e.plan, VW_GUEST_XRDP));
	/* The unit first: reload, enable, restart, each once. */
	{
		size_t i = 0;

		while (e.plan.post_cmds[i] && strcmp(e.plan.post_cmds[i], "systemctl daemon-reload") != 0)
			i++;
		assert_non_null(e.plan.post_cmds[i]);
		assert_string_equal(e.plan.post_cmds[i + 1], "systemctl enable vfiowiz-vnc-allow.service");
		assert_string_equal(e.plan.post_cmds[i + 2], "systemctl restart vfiowiz-vnc-allow.service");
		assert_null(e.plan.post_cmds[i + 3]);
	}

	/* The password: only in the domain document, a secret 0600 change. */
	for (size_t i = 0; i < e.plan.n; i++) {
		const struct vw_change *x = &e.plan.v[i];
		bool has = contains(x->new_data, x->new_len, "Pa55w0rd");

		if (strcmp(x->path, "etc/vfiowiz/libvirt/win11.xml") == 0) {
			assert_true(has);
			assert_true(x->secret);
			assert_int_equal(x->mode, 0600);
		} else {
			assert_false(has);
		}
		assert_null(strstr(x->why, "Pa55w0rd"));
	}
	for (size_t i = 0; e.plan.post_cmds[i]; i++)
		assert_null(strstr(e.plan.post_cmds[i], "Pa55w0rd"));
	for (size_t i = 0; e.info.notes[i]; i++)
		assert_null(strstr(e.info.notes[i], "Pa55w0rd"));
	for (size_t i = 0; e.vm.notes[i]; i++)
		assert_null(strstr(e.vm.notes[i], "Pa55w0rd"));

	vw_access_connect_text(&text, &c, &e.vm, &e.info);
	assert_null(strstr(text.data, "Pa55w0rd"));
	assert_non_null(strstr(text.data, "ssh -N -L 5900:127.0.0.1:5900 alice@gpu-box.lan"));
	assert_non_null(strstr(text.data, "ssh -N -L 13389:GUEST_IP:3389 alice@gpu-box.lan"));
	assert_non_null(strstr(text.data, "mstsc /v:localhost:13389"));
	assert_non_null(strstr(text.data, "virsh domifaddr win11"));
	golden("connect-libvirt-windows.txt", text.data, text.len);
	vw_buf_done(&text);

	/* Twice: nothing more. */
	for (size_t i = 0; i < e.plan.n; i++)
		tu_write_bytes(e.root, e.plan.v[i].path, e.plan.v[i].new_data, e.plan.v[i].new_len);
	vw_plan_done(&e.plan);
	vw_plan_init(&e.plan);
	tu_write(e.root, "var/lib/libvirt/images/win11.qcow2", "QFI\xfb");
	build(&e, &c, &h);
	assert_int_equal(e.plan.n, 0);
	assert_int_equal(e.plan.npost, 0);

	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

static void test_plan_linux_proxmox(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;
	struct vw_buf text = VW_BUF_INIT;
	bool novnc = false;

	(void)state;
	env_open(&e, true);
	tu_mkdir(e.root, "etc/pve/qemu-server");
	fake_amd(&h);
	fake_choices(&c, VW_VM_PROXMOX, VW_GUEST_LINUX, "ubuntu");
	c.access.xrdp = true;
	c.access.rdp = true;	/* a Windows thing: a note, no script */
	build(&e, &c, &h);
	ch = vw_plan_find(&e.plan, VW_GUEST_XRDP);
	assert_non_null(ch);
	assert_int_equal(ch->mode, 0755);
	assert_true(e.info.xrdp_loopback);
	assert_null(vw_plan_find(&e.plan, VW_GUEST_RDP));
	/* No host VNC on Proxmox: no allow-list, and a note about noVNC. */
	assert_null(vw_plan_find(&e.plan, VW_NFT_FILE));
	for (size_t i = 0; e.info.notes[i]; i++)
		novnc |= strstr(e.info.notes[i], "noVNC") != NULL;
	assert_true(novnc);
	vw_access_connect_text(&text, &c, &e.vm, &e.info);
	assert_non_null(strstr(text.data, "ssh -N -J USER@HOST -L 13389:127.0.0.1:3389 GUESTUSER@GUEST_IP"));
	assert_null(strstr(text.data, "5900"));
	golden("connect-proxmox-xrdp.txt", text.data, text.len);
	vw_buf_done(&text);
	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

static void test_plan_no_nft(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;

	(void)state;
	env_open(&e, false);
	fake_amd(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_LINUX, "deb");
	fake_allow(&c, allow_list);
	build(&e, &c, &h);
	assert_false(e.info.nft);
	assert_null(vw_plan_find(&e.plan, VW_NFT_FILE));
	assert_true(e.info.nnotes >= 1);
	/* Nothing chosen but VNC without a tunnel user: placeholders. */
	{
		struct vw_buf text = VW_BUF_INIT;

		vw_access_connect_text(&text, &c, &e.vm, &e.info);
		assert_non_null(strstr(text.data, "USER@HOST"));
		vw_buf_done(&text);
	}
	/* Nothing chosen at all: no text. */
	c.access.vnc = false;
	{
		struct vw_buf text = VW_BUF_INIT;

		vw_access_connect_text(&text, &c, &e.vm, NULL);
		assert_int_equal(text.len, 0);
		vw_buf_done(&text);
	}
	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_vnc_check),
		cmocka_unit_test(test_nft),
		cmocka_unit_test(test_rdp_script),
		cmocka_unit_test(test_xrdp_script),
		cmocka_unit_test(test_xrdp_nft_fragment),
		cmocka_unit_test(test_plan_windows_libvirt),
		cmocka_unit_test(test_plan_linux_proxmox),
		cmocka_unit_test(test_plan_no_nft),
	};

	if (getenv("top_srcdir")) {
		char *t = vw_xasprintf("%s/templates", getenv("top_srcdir"));

		setenv("VFIOWIZ_TEMPLATES", t, 1);
		free(t);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
