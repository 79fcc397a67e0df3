/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-hostrole.c - what the host needs (facts.h enum vw_host_role), read from
 * the fixture hosts and from scratch trees, through the whole facts probe. */
#include "facts.h"
#include "pipeline.h"
#include "report.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int probe(const char *root, const char *ssh, struct vw_facts *f)
{
	struct vw_sysroot *sr = NULL;
	struct vw_err err = { 0 };
	struct vw_facts_opts o = { .ssh_connection = ssh };
	int r;

	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	r = vw_facts_probe_opts(f, sr, &o, &err);
	vw_sysroot_free(sr);
	return r;
}

/* A fixture host, probed with the SSH session ssh (NULL: the recorded one). */
static bool host(const char *name, const char *ssh, struct vw_facts *f)
{
	char *root = tu_host(name);

	if (!root)
		return false;
	assert_int_equal(probe(root, ssh, f), 0);
	free(root);
	return true;
}

static const struct vw_pci_dev *dev(const struct vw_facts *f, const char *addr)
{
	int i = vw_facts_find_dev(f, addr);

	assert_true(i >= 0);
	return &f->devs[i];
}

/* Every function but those named has no role, and an empty reason. */
static void only_roles(const struct vw_facts *f, const char *const *addrs)
{
	for (size_t i = 0; i < f->ndevs; i++) {
		bool named = false;

		for (size_t k = 0; addrs[k]; k++)
			named |= !strcmp(addrs[k], f->devs[i].addr);
		if (named)
			continue;
		if (f->devs[i].host_role)
			fail_msg("%s: unexpected host role %u (%s)", f->devs[i].addr, f->devs[i].host_role,
				 f->devs[i].host_role_why);
		assert_string_equal(f->devs[i].host_role_why, "");
	}
}

static void test_demo(void **state)
{
	struct vw_facts f;
	const struct vw_pci_dev *d;
	static const char *const roles[] = { "0000:01:00.0", "0000:04:00.0", "0000:06:00.1", NULL };

	(void)state;
	/* Under a sysroot the environment describes this machine, not the
	 * tree: never read. */
	setenv("SSH_CONNECTION", "192.168.1.23 50122 192.168.1.10 22", 1);
	if (!host("demo", NULL, &f))
		skip();
	unsetenv("SSH_CONNECTION");
	assert_false(f.over_ssh);
	d = dev(&f, "0000:01:00.0");	/* the NVMe: root, ESP, swap */
	assert_int_equal(d->host_role, VW_HOST_STORAGE);
	assert_string_equal(d->host_role_why, "/, /boot/efi, swap (nvme0n1)");
	d = dev(&f, "0000:04:00.0");	/* igb: the default route */
	assert_int_equal(d->host_role, VW_HOST_NETWORK);
	assert_string_equal(d->host_role_why, "the default route (enp4s0)");
	d = dev(&f, "0000:06:00.1");	/* the only keyboard's xHCI */
	assert_int_equal(d->host_role, VW_HOST_INPUT);
	assert_string_equal(d->host_role_why, "the keyboard Logitech USB Keyboard");
	/* The unused data disk's SATA controller, the other xHCI: free. */
	only_roles(&f, roles);
	{
		struct vw_buf b = VW_BUF_INIT;

		vw_report_groups_text(&b, &f, false);
		assert_non_null(strstr(b.data, "(nvme)  <- host storage: /, /boot/efi, swap (nvme0n1)\n"));
		assert_non_null(strstr(b.data, "(igb)  <- host network: the default route (enp4s0)\n"));
		assert_non_null(strstr(b.data, "<- host input: the keyboard Logitech USB Keyboard\n"));
		vw_buf_done(&b);
		vw_report_groups_json(&b, &f, false);
		assert_non_null(strstr(b.data, "\"host_role\": [\n"));
		assert_non_null(strstr(b.data, "\"host_role_why\": \"/, /boot/efi, swap (nvme0n1)\""));
		vw_buf_done(&b);
	}
	vw_facts_done(&f);

	/* Over SSH from the LAN: the same NIC carries the session; the
	 * keyboard no longer matters. */
	assert_true(host("demo", "192.168.1.23 50122 192.168.1.10 22", &f));
	assert_true(f.over_ssh);
	/* kept for the access step's connect command (the server's address) */
	assert_string_equal(f.ssh_connection, "192.168.1.23 50122 192.168.1.10 22");
	d = dev(&f, "0000:04:00.0");
	assert_int_equal(d->host_role, VW_HOST_NETWORK);
	assert_string_equal(d->host_role_why, "the default route and this SSH session (enp4s0)");
	assert_int_equal(dev(&f, "0000:06:00.1")->host_role, 0);
	vw_facts_done(&f);

	/* Through a tunnel (the client is this host): no NIC carries it. */
	assert_true(host("demo", "127.0.0.1 40000 127.0.0.1 22", &f));
	assert_string_equal(dev(&f, "0000:04:00.0")->host_role_why, "the default route (enp4s0)");
	vw_facts_done(&f);
}

/* Proxmox on LVM: the root is a device-mapper volume on the NVMe's
 * partition; the default route goes through the bridge vmbr0. */
static void test_lvm_bridge(void **state)
{
	struct vw_facts f;
	const struct vw_pci_dev *d;
	static const char *const roles[] = { "0000:02:00.0", "0000:00:1f.6", "0000:00:14.0", NULL };

	(void)state;
	if (!host("acs-override-active", NULL, &f))
		skip();
	d = dev(&f, "0000:02:00.0");
	assert_int_equal(d->host_role, VW_HOST_STORAGE);
	assert_non_null(strstr(d->host_role_why, "(nvme0n1)"));
	assert_non_null(strstr(d->host_role_why, "/boot/efi"));
	assert_non_null(strstr(d->host_role_why, "swap"));
	assert_string_equal(dev(&f, "0000:00:1f.6")->host_role_why, "the default route (vmbr0: eno1)");
	only_roles(&f, roles);
	vw_facts_done(&f);
}

/* Proxmox on ZFS over SSH: the session is the snapshot's recorded one
 * (.vfiowiz/ssh_connection), never this process's environment. */
static void test_zfs_recorded_ssh(void **state)
{
	struct vw_facts f;
	const struct vw_pci_dev *d;
	static const char *const roles[] = { "0000:01:00.0", "0000:02:00.0", "0000:81:00.0", NULL };

	(void)state;
	setenv("SSH_CONNECTION", "10.9.9.9 1 10.9.9.1 22", 1);
	if (!host("proxmox-systemd-boot", NULL, &f))
		skip();
	assert_true(f.over_ssh);
	d = dev(&f, "0000:81:00.0");
	assert_int_equal(d->host_role, VW_HOST_NETWORK);
	assert_string_equal(d->host_role_why, "the default route and this SSH session (vmbr0: eno1)");
	/* Both mirrors of rpool: their contents are unknown here, so each may
	 * hold the pool mounted on /. */
	assert_int_equal(dev(&f, "0000:01:00.0")->host_role, VW_HOST_STORAGE);
	assert_int_equal(dev(&f, "0000:02:00.0")->host_role, VW_HOST_STORAGE);
	assert_non_null(strstr(dev(&f, "0000:02:00.0")->host_role_why, "ZFS"));
	only_roles(&f, roles);
	vw_facts_done(&f);

	/* "" in the options: no session, whatever was recorded. */
	assert_true(host("proxmox-systemd-boot", "", &f));
	assert_false(f.over_ssh);
	assert_null(f.ssh_connection);
	assert_string_equal(dev(&f, "0000:81:00.0")->host_role_why, "the default route (vmbr0: eno1)");
	vw_facts_done(&f);
	unsetenv("SSH_CONNECTION");
}

/* A laptop: the built-in keyboard hangs off no PCI function, Wi-Fi carries
 * the default route. */
static void test_laptop(void **state)
{
	struct vw_facts f;
	static const char *const roles[] = { "0000:3d:00.0", "0000:3b:00.0", NULL };

	(void)state;
	if (!host("laptop-optimus", NULL, &f))
		skip();
	assert_int_equal(dev(&f, "0000:3b:00.0")->host_role, VW_HOST_NETWORK);
	assert_string_equal(dev(&f, "0000:3d:00.0")->host_role_why, "/, /boot/efi (nvme0n1)");
	only_roles(&f, roles);
	vw_facts_done(&f);
}

/* ---- scratch trees ---------------------------------------------------- */

/* One PCI function at addr with the class given, on the root bus. */
static void pci(const char *root, const char *addr, const char *cls)
{
	char rel[256], target[256];

	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/class", addr);
	tu_write(root, rel, cls);
	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/vendor", addr);
	tu_write(root, rel, "0x8086\n");
	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/device", addr);
	tu_write(root, rel, "0x1533\n");
	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/irq", addr);
	tu_write(root, rel, "0\n");
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", addr);
	snprintf(target, sizeof(target), "../../../devices/pci0000:00/%s", addr);
	tu_symlink(root, rel, target);
}

static void nic(const char *root, const char *ifname, const char *addr)
{
	char rel[256], target[256];

	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/net/%s/device", addr, ifname);
	tu_symlink(root, rel, "../..");
	snprintf(rel, sizeof(rel), "sys/class/net/%s", ifname);
	snprintf(target, sizeof(target), "../../devices/pci0000:00/%s/net/%s", addr, ifname);
	tu_symlink(root, rel, target);
}

static const char kbd_fmt[] =
	"I: Bus=0003 Vendor=04d9 Product=0006 Version=0111\n"
	"N: Name=\"%s\"\n"
	"S: Sysfs=/devices/pci0000:00/%s/usb1/1-2/1-2:1.0/input/input%d\n"
	"H: Handlers=sysrq kbd leds event%d\n"
	"B: EV=120013\n"
	"\n";

static void test_scratch_network(void **state)
{
	char *root = tu_mkroot();
	struct vw_facts f;

	(void)state;
	pci(root, "0000:00:1f.6", "0x020000\n");
	pci(root, "0000:03:00.0", "0x020000\n");
	pci(root, "0000:04:00.0", "0x020000\n");
	nic(root, "eno1", "0000:00:1f.6");
	nic(root, "enp3s0", "0000:03:00.0");
	nic(root, "enp4s0", "0000:04:00.0");
	/* bond0 over enp3s0 and enp4s0, a VLAN on the bond. */
	tu_symlink(root, "sys/devices/virtual/net/bond0/lower_enp3s0", "../../../pci0000:00/0000:03:00.0/net/enp3s0");
	tu_symlink(root, "sys/devices/virtual/net/bond0/lower_enp4s0", "../../../pci0000:00/0000:04:00.0/net/enp4s0");
	tu_symlink(root, "sys/class/net/bond0", "../../devices/virtual/net/bond0");
	tu_symlink(root, "sys/devices/virtual/net/bond0.10/lower_bond0", "../bond0");
	tu_symlink(root, "sys/class/net/bond0.10", "../../devices/virtual/net/bond0.10");
	/* IPv4: a default route of metric 600 on eno1, a better one (100) on
	 * the VLAN; a down route and lo are ignored. */
	tu_write(root, "proc/net/route",
		 "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
		 "eno1\t00000000\t0100000A\t0003\t0\t0\t600\t00000000\t0\t0\t0\n"
		 "bond0.10\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
		 "eno1\t00000000\t0100000A\t0002\t0\t0\t50\t00000000\t0\t0\t0\n"
		 "eno1\t0000000A\t00000000\t0001\t0\t0\t600\t000000FF\t0\t0\t0\n"
		 "bond0.10\t0001A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n");
	/* IPv6: lo's unreachable default is ignored; no other default. */
	tu_write(root, "proc/net/ipv6_route",
		 "20010db8000000000000000000000000 20 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001 eno1\n"
		 "00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200 lo\n");

	assert_int_equal(probe(root, "", &f), 0);
	assert_int_equal(dev(&f, "0000:00:1f.6")->host_role, 0);
	assert_string_equal(dev(&f, "0000:03:00.0")->host_role_why, "the default route (bond0.10: bond0: enp3s0)");
	assert_string_equal(dev(&f, "0000:04:00.0")->host_role_why, "the default route (bond0.10: bond0: enp4s0)");
	vw_facts_done(&f);

	/* An SSH client in 10.0.0.0/8 comes through eno1 (longest prefix);
	 * one in 2001:db8::/32 too; an IPv4-mapped client like IPv4. */
	assert_int_equal(probe(root, "10.1.2.3 50000 10.0.0.2 22", &f), 0);
	assert_string_equal(dev(&f, "0000:00:1f.6")->host_role_why, "this SSH session (eno1)");
	vw_facts_done(&f);
	assert_int_equal(probe(root, "2001:db8::5 50000 2001:db8::1 22", &f), 0);
	assert_string_equal(dev(&f, "0000:00:1f.6")->host_role_why, "this SSH session (eno1)");
	vw_facts_done(&f);
	assert_int_equal(probe(root, "::ffff:10.1.2.3 50000 ::ffff:10.0.0.2 22", &f), 0);
	assert_int_equal(dev(&f, "0000:00:1f.6")->host_role, VW_HOST_NETWORK);
	vw_facts_done(&f);
	/* Garbage in the session: nothing, no crash. */
	assert_int_equal(probe(root, "not-an-address \x1b[2J", &f), 0);
	assert_int_equal(dev(&f, "0000:00:1f.6")->host_role, 0);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

static void test_scratch_input(void **state)
{
	char *root = tu_mkroot();
	char text[1024];
	struct vw_facts f;

	(void)state;
	pci(root, "0000:00:14.0", "0x0c0330\n");
	pci(root, "0000:05:00.0", "0x0c0330\n");
	/* Two keyboards on one controller, a name with an escape sequence. */
	snprintf(text, sizeof(text), kbd_fmt, "Cherry \x1b]52;c;AAAA\x07 Keyboard", "0000:00:14.0", 3, 3);
	{
		char two[2048];

		snprintf(two, sizeof(two), "%s", text);
		snprintf(text, sizeof(text), kbd_fmt, "Barcode", "0000:00:14.0", 4, 4);
		strncat(two, text, sizeof(two) - strlen(two) - 1);
		tu_write(root, "proc/bus/input/devices", two);
	}
	assert_int_equal(probe(root, "", &f), 0);
	assert_int_equal(dev(&f, "0000:00:14.0")->host_role, VW_HOST_INPUT);
	assert_null(strchr(dev(&f, "0000:00:14.0")->host_role_why, '\x1b'));
	assert_non_null(strstr(dev(&f, "0000:00:14.0")->host_role_why, "Barcode"));
	vw_facts_done(&f);

	/* Keyboards on two controllers: neither is the only one. */
	snprintf(text, sizeof(text), kbd_fmt, "A", "0000:00:14.0", 3, 3);
	{
		char two[2048];

		snprintf(two, sizeof(two), "%s", text);
		snprintf(text, sizeof(text), kbd_fmt, "B", "0000:05:00.0", 4, 4);
		strncat(two, text, sizeof(two) - strlen(two) - 1);
		tu_write(root, "proc/bus/input/devices", two);
	}
	assert_int_equal(probe(root, "", &f), 0);
	assert_int_equal(dev(&f, "0000:00:14.0")->host_role, 0);
	assert_int_equal(dev(&f, "0000:05:00.0")->host_role, 0);
	vw_facts_done(&f);

	/* No sys/block: said, not silently ignored. */
	assert_int_equal(probe(root, "", &f), 0);
	{
		bool said = false;

		for (size_t i = 0; i < f.nnotes; i++)
			said |= strstr(f.notes[i], "could not be listed") != NULL;
		assert_true(said);
	}
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

/* The whole plan on the demo host, as `plan` and the wizard build it: the
 * root NVMe (issue 13's example) refused with a message naming the disk,
 * given with the opt-in; the NIC of an SSH session (the facts option, as on
 * a live host with SSH_CONNECTION set) likewise. */
static int demo_plan(const char *answers, const char *ssh, char *msg, size_t size, char *notes,
		     size_t nsize)
{
	char *root = tu_host("demo");
	struct vw_sysroot *sr = NULL;
	struct vw_err err = { 0 };
	struct vw_facts_opts o = { .ssh_connection = ssh };
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_plan plan;
	struct vw_plan_info pi = { 0 };
	int r;

	assert_non_null(root);
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	assert_int_equal(vw_facts_probe_opts(&f, sr, &o, &err), 0);
	assert_int_equal(vw_answers_parse(&c, answers, strlen(answers), "a.conf", &err), 0);
	vw_plan_init(&plan);
	r = vw_pipeline_build(&plan, sr, &f, &c, &pi, &err);
	snprintf(msg, size, "%s", r < 0 ? err.msg : "");
	notes[0] = '\0';
	for (size_t i = 0; i < pi.nnotes; i++)
		snprintf(notes + strlen(notes), nsize - strlen(notes), "%s\n", pi.notes[i]);
	vw_pipeline_info_done(&pi);
	vw_plan_done(&plan);
	vw_choices_done(&c);
	vw_facts_done(&f);
	vw_sysroot_free(sr);
	free(root);
	return r;
}

static void test_plan_demo(void **state)
{
	char msg[1024], notes[8192], *root = tu_host("demo");

	(void)state;
	if (!root)
		skip();
	free(root);
	assert_true(demo_plan("devices = {\"0000:01:00\"}\n", "", msg, sizeof(msg), notes, sizeof(notes)) < 0);
	assert_non_null(strstr(msg, "0000:01:00.0"));
	assert_non_null(strstr(msg, "/, /boot/efi, swap (nvme0n1)"));
	assert_non_null(strstr(msg, "allow_host_storage"));

	assert_int_equal(demo_plan("devices = {\"0000:01:00\"}\nallow_host_storage = true\n", "", msg,
				   sizeof(msg), notes, sizeof(notes)), 0);
	assert_non_null(strstr(notes, "(nvme0n1)"));
	assert_non_null(strstr(notes, "allow_host_storage = true"));

	/* The NIC is alone in no group of the GPU; chosen directly it is
	 * refused for the SSH session too. */
	assert_true(demo_plan("devices = {\"0000:04:00\"}\n", "192.168.1.23 50122 192.168.1.10 22",
			      msg, sizeof(msg), notes, sizeof(notes)) < 0);
	assert_non_null(strstr(msg, "this SSH session (enp4s0)"));
	assert_non_null(strstr(msg, "allow_host_network"));
	/* The opt-in for the network is not enough: the NIC's group holds the
	 * only keyboard's controller too (not over SSH). */
	assert_true(demo_plan("devices = {\"0000:04:00\"}\nallow_host_network = true\nallow_host_display = true\n", "",
			      msg, sizeof(msg), notes, sizeof(notes)) < 0);
	assert_non_null(strstr(msg, "0000:06:00.1"));
	assert_null(strstr(msg, "carries the host's network"));
	/* Over SSH the keyboard does not count: the network opt-in is all the
	 * NIC needs (the boot display in its group has its own). */
	assert_int_equal(demo_plan("devices = {\"0000:04:00\"}\nallow_host_network = true\nallow_host_display = true\n",
				   "192.168.1.23 50122 192.168.1.10 22", msg, sizeof(msg), notes, sizeof(notes)), 0);
	assert_non_null(strstr(notes, "this SSH session (enp4s0)"));
}

/* `sudo vfiowiz` (env_reset), su - and doas start vfiowiz without
 * SSH_CONNECTION: the shell sshd started still has it, up the parent chain. */
static void test_ssh_from_ancestors(void **state)
{
	static const char env_shell[] = "PATH=/usr/bin\0SSH_CONNECTION=10.1.2.3 50000 10.0.0.2 22\0TERM=xterm\0";
	static const char env_sudo[] = "PATH=/usr/sbin\0SUDO_USER=mario\0";
	char *root = tu_mkroot(), *s;
	struct vw_sysroot *sr = NULL;
	struct vw_err err = { 0 };

	(void)state;
	tu_write(root, "proc/300/stat", "300 (vfiowiz) S 200 300 100 34816 300 4194304 0 0\n");
	tu_write_bytes(root, "proc/300/environ", env_sudo, sizeof(env_sudo) - 1);
	/* A command name with ") S 1 " in it does not fool the parser. */
	tu_write(root, "proc/200/stat", "200 (sudo) S 1 ) S 100 200 100 34816 300 4194560 0 0\n");
	tu_write_bytes(root, "proc/200/environ", env_sudo, sizeof(env_sudo) - 1);
	tu_write(root, "proc/100/stat", "100 (bash) S 90 100 100 34816 300 4194304 0 0\n");
	tu_write_bytes(root, "proc/100/environ", env_shell, sizeof(env_shell) - 1);
	tu_write(root, "proc/90/stat", "90 (sshd) S 1 90 90 0 -1 4194560 0 0\n");
	/* A loop (a damaged tree) ends. */
	tu_write(root, "proc/7/stat", "7 (a) S 8 7 7 0 -1 0 0 0\n");
	tu_write(root, "proc/8/stat", "8 (b) S 7 8 8 0 -1 0 0 0\n");
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	s = vw_ssh_connection_of(sr, 300);
	assert_non_null(s);
	assert_string_equal(s, "10.1.2.3 50000 10.0.0.2 22");
	free(s);
	assert_null(vw_ssh_connection_of(sr, 90));	/* sshd itself: none */
	assert_null(vw_ssh_connection_of(sr, 7));
	assert_null(vw_ssh_connection_of(sr, 4242));	/* no such process */
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
}

static void test_role_names(void **state)
{
	char buf[64], tiny[9];

	(void)state;
	assert_string_equal(vw_host_role_names(0, buf, sizeof(buf)), "");
	assert_string_equal(vw_host_role_names(VW_HOST_STORAGE | VW_HOST_INPUT, buf, sizeof(buf)),
			    "storage,input");
	assert_string_equal(vw_host_role_names(VW_HOST_STORAGE | VW_HOST_NETWORK, tiny, sizeof(tiny)),
			    "storage");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demo),
		cmocka_unit_test(test_lvm_bridge),
		cmocka_unit_test(test_zfs_recorded_ssh),
		cmocka_unit_test(test_laptop),
		cmocka_unit_test(test_scratch_network),
		cmocka_unit_test(test_scratch_input),
		cmocka_unit_test(test_plan_demo),
		cmocka_unit_test(test_role_names),
		cmocka_unit_test(test_ssh_from_ancestors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
