/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-answers.c - the answers file (libconfuse) and kernel command-line
 * editing (core/cmdline). */
#include "testutil.h"
#include "answers.h"
#include "cmdline.h"
#include "facts.h"
#include "sysroot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int parse(struct vw_choices *c, const char *text, struct vw_err *err)
{
	return vw_answers_parse(c, text, strlen(text), "a.conf", err);
}

/* Parse text, expect failure with exactly msg. */
static void expect_error(const char *text, const char *msg)
{
	struct vw_choices c = { 0 };
	struct vw_err err = { 0 };

	assert_int_equal(parse(&c, text, &err), -EINVAL);
	assert_string_equal(err.msg, msg);
	/* Left with the defaults, usable and freeable. */
	assert_non_null(c.devices);
	assert_int_equal(c.ndevices, 0);
	vw_choices_done(&c);
}

static void test_defaults(void **state)
{
	struct vw_choices c = { 0 };
	struct vw_err err = { 0 };

	(void)state;
	assert_int_equal(parse(&c, "# nothing\n", &err), 0);
	assert_int_equal(c.ndevices, 0);
	assert_null(c.devices[0]);
	assert_int_equal(c.bootloader, VW_BL_UNKNOWN);
	assert_int_equal(c.initramfs, VW_IRFS_UNKNOWN);
	assert_int_equal(c.binding, VW_BIND_AUTO);
	assert_true(c.iommu_pt);
	assert_true(vw_acs_is_none(&c.acs));
	assert_false(c.acs_ids);
	assert_false(c.allow_host_display);
	assert_false(c.allow_host_storage);
	assert_false(c.allow_host_network);
	assert_false(c.allow_host_input);
	assert_false(c.test_boot);
	assert_int_equal(c.vm.target, VW_VM_LIBVIRT);
	assert_int_equal(c.vm.memory_mib, 8192);
	assert_true(c.vm.hide_kvm);
	assert_false(c.access.vnc);
	assert_int_equal(c.access.rdp_port, 3389);
	assert_string_equal(c.source, "a.conf");
	vw_choices_done(&c);
}

static const char full[] =
	"# all keys\n"
	"devices = {\"0000:01:00.0\", \"0000:01:00.1\", \"02:00\", \"0000:01:00.0\"}\n"
	"bootloader = systemd-boot\n"
	"initramfs = dracut\n"
	"binding = address\n"
	"iommu_pt = false\n"
	"acs_override = \"downstream,multifunction,ids,id:10de:2204\"\n"
	"allow_host_display = true\n"
	"blacklist = {nouveau, \"snd-hda-intel\"}\n"
	"test_boot = true\n"
	"allow_host_storage = true\n"
	"allow_host_network = true\n"
	"vm {\n"
	"  target = proxmox\n"
	"  name = win11\n"
	"  existing = true\n"
	"  vmid = 105\n"
	"  memory_mib = 16384\n"
	"  vcpus = 8\n"
	"  guest_os = linux\n"
	"  hide_kvm = false\n"
	"  storage {\n"
	"    type = disk\n"
	"    path = \"/dev/disk/by-id/nvme-x\"\n"
	"    size_gib = 100\n"
	"  }\n"
	"}\n"
	"access {\n"
	"  vnc = false\n"
	"  vnc_password = 's3cret'\n"
	"  rdp = true\n"
	"  rdp_port = 3390\n"
	"  xrdp = true\n"
	"  allow = {\"192.0.2.10\", \"198.51.100.0/24\", \"2001:db8::/32\"}\n"
	"  ssh_user = alice\n"
	"  ssh_host = host.example\n"
	"}\n";

static void test_full(void **state)
{
	struct vw_choices c = { 0 };
	struct vw_err err = { 0 };

	(void)state;
	assert_int_equal(parse(&c, full, &err), 0);
	/* Canonical and de-duplicated; a slot stays a slot. */
	assert_int_equal(c.ndevices, 3);
	assert_string_equal(c.devices[0], "0000:01:00.0");
	assert_string_equal(c.devices[1], "0000:01:00.1");
	assert_string_equal(c.devices[2], "0000:02:00");
	assert_null(c.devices[3]);
	assert_int_equal(c.devices_line, 2);
	assert_int_equal(c.bootloader, VW_BL_SYSTEMD_BOOT);
	assert_int_equal(c.bootloader_line, 3);
	assert_int_equal(c.initramfs, VW_IRFS_DRACUT);
	assert_int_equal(c.binding, VW_BIND_ADDRESS);
	assert_false(c.iommu_pt);
	assert_true(c.acs.downstream);
	assert_true(c.acs.multifunction);
	assert_int_equal(c.acs.nids, 1);
	assert_int_equal(c.acs.ids[0][0], 0x10de);
	assert_true(c.acs_ids);
	assert_int_equal(c.acs_line, 7);
	assert_true(c.allow_host_display);
	assert_true(c.allow_host_storage);
	assert_true(c.allow_host_network);
	assert_false(c.allow_host_input);
	assert_int_equal(c.nblacklist, 2);
	assert_string_equal(c.blacklist[1], "snd-hda-intel");
	assert_true(c.test_boot);
	assert_int_equal(c.vm.target, VW_VM_PROXMOX);
	assert_string_equal(c.vm.name, "win11");
	assert_true(c.vm.existing);
	assert_int_equal(c.vm.vmid, 105);
	assert_int_equal(c.vm.memory_mib, 16384);
	assert_int_equal(c.vm.vcpus, 8);
	assert_int_equal(c.vm.guest_os, VW_GUEST_LINUX);
	assert_false(c.vm.hide_kvm);
	assert_int_equal(c.vm.storage_type, VW_STORAGE_DISK);
	assert_string_equal(c.vm.storage_path, "/dev/disk/by-id/nvme-x");
	assert_int_equal(c.vm.storage_size_gib, 100);
	assert_false(c.access.vnc);
	assert_string_equal(c.access.vnc_password, "s3cret");
	assert_true(c.access.rdp);
	assert_int_equal(c.access.rdp_port, 3390);
	assert_true(c.access.xrdp);
	assert_int_equal(c.access.nallow, 3);
	assert_string_equal(c.access.allow[2], "2001:db8::/32");
	assert_string_equal(c.access.ssh_user, "alice");
	assert_string_equal(c.access.ssh_host, "host.example");
	vw_choices_done(&c);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("devices = {\"0000:01:00.0\"}\n\nfoo = 1\n", "a.conf:3: no such option 'foo'");
	/* Line numbers stay right after comments of every kind. */
	expect_error("# a\n// b\n/* c\n d */ iommu_pt = true # e\nfoo = 1\n", "a.conf:5: no such option 'foo'");
	expect_error("access { vnc_password = 'x#y' } # z\n# w\nfoo = \"#\"\n", "a.conf:3: no such option 'foo'");
	expect_error("bootloader = lilo\n",
		     "a.conf:1: bad value 'lilo' for 'bootloader' (expected auto|proxmox-boot-tool|kernelstub|grubby|kernel-install|systemd-boot|grub)");
	expect_error("\ninitramfs = mkinitrd\n",
		     "a.conf:2: bad value 'mkinitrd' for 'initramfs' (expected auto|booster|mkinitcpio|initramfs-tools|dracut)");
	expect_error("binding = pci\n",
		     "a.conf:1: bad value 'pci' for 'binding' (expected auto|ids|address|cmdline)");
	expect_error("iommu_pt = maybe\n", "a.conf:1: invalid boolean value for option 'iommu_pt'");
	expect_error("devices = {\"0000:01:00.0\", \"1:2:3:4\"}\n",
		     "a.conf:1: bad PCI address '1:2:3:4' in 'devices' (expected 0000:01:00.0, or 0000:01:00 for every function of a slot)");
	expect_error("devices = {\"0000:01:20.0\"}\n",
		     "a.conf:1: bad PCI address '0000:01:20.0' in 'devices' (expected 0000:01:00.0, or 0000:01:00 for every function of a slot)");
	expect_error("bootloader = grub\nbootloader = grub\n",
		     "a.conf:2: 'bootloader' is given twice (first on line 1)");
	expect_error("devices = {\"0000:01:00.0\"\n", "a.conf:2: premature end of file");
	expect_error("vm {\n  target = libvirt\n  colour = blue\n}\n", "a.conf:3: no such option 'colour'");
	expect_error("vm {\n  storage {\n    type = tape\n  }\n}\n",
		     "a.conf:3: bad value 'tape' for 'vm|storage|type' (expected qcow2|image|disk)");
	expect_error("vm {\n  vcpus = 0\n}\n", "a.conf:2: 'vm|vcpus' = 0 is out of range (1 to 1024)");
	expect_error("vm {\n  name = \"my vm\"\n}\n",
		     "a.conf:2: bad value 'my vm' for 'vm|name' (letters, digits, '.', '_', '-' and '+' only, at most 64)");
	expect_error("access {\n  vnc_password = \"123456789\"\n}\n",
		     "a.conf:2: 'access|vnc_password' is longer than 8 characters (VNC cannot use more)");
	expect_error("access {\n  allow = {\"192.0.2.300\"}\n}\n",
		     "a.conf:2: bad address '192.0.2.300' in 'access|allow' (expected 192.0.2.10, 198.51.100.0/24 or an IPv6 address)");
	expect_error("acs_override = sideways\n",
		     "a.conf:1: bad value 'sideways' for 'acs_override' (expected none, downstream, multifunction, ids or id:VVVV:DDDD, separated by commas)");
	expect_error("blacklist = {\"nouveau; rm -rf\"}\n", "a.conf:1: bad module name 'nouveau; rm -rf' in 'blacklist'");
	expect_error("vm {}\nvm {}\n", "a.conf:2: 'vm' is given twice (first on line 1)");
	expect_error("devices = {\"0000:01:00.0\" \"0000:02:00.0\"}\n", "a.conf:1: unexpected token '0000:02:00.0'");
	expect_error("# the VM\nvm {\n  target = libvirt\n", "a.conf:2: this '{' is never closed");
	expect_error("bootloader = \"grub\n", "a.conf:2: premature end of file");
	expect_error("gpu_mode = hotplug\n",
		     "a.conf:1: bad value 'hotplug' for 'gpu_mode' (expected static|dynamic)");
	expect_error("vm {\n  looking_glass = spice\n}\n",
		     "a.conf:2: bad value 'spice' for 'vm|looking_glass' (expected none|ivshmem|kvmfr)");
	expect_error("vm {\n  looking_glass_resolution = '1920*1080'\n}\n",
		     "a.conf:2: bad value '1920*1080' for 'vm|looking_glass_resolution' (expected WIDTHxHEIGHT, such as 2560x1440)");
	expect_error("vm {\n  looking_glass_resolution = '99999x1080'\n}\n",
		     "a.conf:2: bad value '99999x1080' for 'vm|looking_glass_resolution' (expected WIDTHxHEIGHT, such as 2560x1440)");
	/* No file inclusion: a hostile file cannot make us read another. */
	expect_error("include(\"/etc/shadow\")\n", "a.conf:1: no such option 'include'");
}

/* The documented example is a valid answers file. */
static void test_example_file(void **state)
{
	const char *src = getenv("top_srcdir");
	char *path = vw_xasprintf("%s/docs/answers.example.conf", src && *src ? src : VW_SRCDIR);
	struct vw_choices c = { 0 };
	struct vw_err err = { 0 };

	(void)state;
	if (vw_answers_load(&c, path, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(c.ndevices, 1);
	assert_string_equal(c.devices[0], "0000:01:00");
	assert_false(c.access.vnc);
	vw_choices_done(&c);
	free(path);
}

static void test_nul_and_missing(void **state)
{
	struct vw_choices c = { 0 };
	struct vw_err err = { 0 };

	(void)state;
	assert_int_equal(vw_answers_parse(&c, "a = 1\0b", 7, "bin.conf", &err), -EINVAL);
	assert_string_equal(err.msg, "bin.conf: not a text file (it holds a NUL byte)");
	vw_choices_done(&c);
	assert_true(vw_answers_load(&c, "/nonexistent/answers.conf", &err) < 0);
	assert_string_equal(err.msg, "cannot open the answers file /nonexistent/answers.conf: No such file or directory");
	vw_choices_done(&c);
}

static void test_roundtrip(void **state)
{
	struct vw_choices a = { 0 }, b = { 0 };
	struct vw_err err = { 0 };
	struct vw_buf out = VW_BUF_INIT;

	(void)state;
	assert_int_equal(parse(&a, full, &err), 0);
	/* Characters that need quoting, and ${} that must stay literal. */
	free(a.access.vnc_password);
	a.access.vnc_password = vw_xstrdup("a'b\\${X}");
	vw_answers_format(&out, &a);
	assert_int_equal(vw_answers_parse(&b, out.data, out.len, "state.conf", &err), 0);
	assert_int_equal(a.ndevices, b.ndevices);
	for (size_t i = 0; i < a.ndevices; i++)
		assert_string_equal(a.devices[i], b.devices[i]);
	assert_int_equal(a.bootloader, b.bootloader);
	assert_int_equal(a.initramfs, b.initramfs);
	assert_int_equal(a.binding, b.binding);
	assert_int_equal(a.iommu_pt, b.iommu_pt);
	assert_memory_equal(&a.acs, &b.acs, sizeof(a.acs));
	assert_int_equal(a.acs_ids, b.acs_ids);
	assert_int_equal(a.nblacklist, b.nblacklist);
	assert_int_equal(a.test_boot, b.test_boot);
	assert_true(b.allow_host_storage);
	assert_true(b.allow_host_network);
	assert_false(b.allow_host_input);
	a.allow_host_input = true;	/* each key on its own */
	{
		struct vw_buf one = VW_BUF_INIT;
		struct vw_choices d = { 0 };

		vw_answers_format(&one, &a);
		assert_int_equal(vw_answers_parse(&d, one.data, one.len, "state.conf", &err), 0);
		assert_true(d.allow_host_input);
		vw_choices_done(&d);
		vw_buf_done(&one);
	}
	a.allow_host_input = false;
	assert_int_equal(a.vm.target, b.vm.target);
	assert_string_equal(a.vm.name, b.vm.name);
	assert_int_equal(a.vm.vmid, b.vm.vmid);
	assert_int_equal(a.vm.storage_type, b.vm.storage_type);
	assert_string_equal(a.vm.storage_path, b.vm.storage_path);
	assert_string_equal(b.access.vnc_password, "a'b\\${X}");
	assert_int_equal(a.access.nallow, b.access.nallow);
	assert_string_equal(a.access.ssh_host, b.access.ssh_host);
	/* Formatting what was parsed back gives the same text. */
	{
		struct vw_buf again = VW_BUF_INIT;

		vw_answers_format(&again, &b);
		assert_string_equal(out.data, again.data);
		vw_buf_done(&again);
	}
	vw_buf_done(&out);
	vw_choices_done(&a);
	vw_choices_done(&b);
}

/* gpu_mode and Looking Glass: defaults, values, lines, and back. */
static void test_gpu_mode(void **state)
{
	struct vw_choices a = { 0 }, b = { 0 };
	struct vw_err err = { 0 };
	struct vw_buf out = VW_BUF_INIT;

	(void)state;
	assert_int_equal(parse(&a, "devices = {}\n", &err), 0);
	assert_int_equal(a.gpu_mode, VW_GPU_STATIC);
	assert_int_equal(a.vm.looking_glass, VW_LG_NONE);
	assert_int_equal(a.vm.lg_width, 1920);
	assert_int_equal(a.vm.lg_height, 1080);
	assert_int_equal(parse(&a, "# one\ngpu_mode = dynamic\nvm {\n  looking_glass = kvmfr\n"
			       "  looking_glass_resolution = \"3840x2160\"\n}\n", &err), 0);
	assert_int_equal(a.gpu_mode, VW_GPU_DYNAMIC);
	assert_int_equal(a.gpu_mode_line, 2);
	assert_int_equal(a.vm.looking_glass, VW_LG_KVMFR);
	assert_int_equal(a.looking_glass_line, 4);
	assert_int_equal(a.vm.lg_width, 3840);
	assert_int_equal(a.vm.lg_height, 2160);
	vw_answers_format(&out, &a);
	assert_non_null(strstr(out.data, "gpu_mode = dynamic\n"));
	assert_int_equal(vw_answers_parse(&b, out.data, out.len, "state.conf", &err), 0);
	assert_int_equal(b.gpu_mode, VW_GPU_DYNAMIC);
	assert_int_equal(b.vm.looking_glass, VW_LG_KVMFR);
	assert_int_equal(b.vm.lg_width, 3840);
	assert_int_equal(b.vm.lg_height, 2160);
	assert_string_equal(vw_gpu_mode_name(VW_GPU_STATIC), "static");
	assert_string_equal(vw_looking_glass_name(VW_LG_IVSHMEM), "ivshmem");
	vw_buf_done(&out);
	vw_choices_done(&a);
	vw_choices_done(&b);
}

static void test_save_private(void **state)
{
	char *root = tu_mkroot(), *path;
	struct vw_sysroot *sr = NULL;
	struct vw_choices c, back = { 0 };
	struct vw_err err = { 0 };
	struct stat st;

	(void)state;
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	vw_choices_init(&c);
	free(c.access.vnc_password);
	c.access.vnc_password = vw_xstrdup("pw");
	/* An existing world-readable file is made private. */
	tu_write(root, VW_STATE_FILE, "# old\n");
	path = vw_xasprintf("%s/%s", root, VW_STATE_FILE);
	chmod(path, 0644);
	assert_int_equal(vw_answers_save(sr, VW_STATE_FILE, &c, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(vw_answers_load_sr(&back, sr, VW_STATE_FILE, &err), 0);
	assert_string_equal(back.access.vnc_password, "pw");
	assert_string_equal(back.source, "/" VW_STATE_FILE);
	vw_choices_done(&back);
	vw_choices_done(&c);
	free(path);
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
}

/* Devices against a fixture host. */
static void test_check_devices(void **state)
{
	char *root = tu_host("amd-desktop");
	struct vw_sysroot *sr = NULL;
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_err err = { 0 };
	int *idx;
	size_t n;

	(void)state;
	if (!root)
		skip();
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	assert_int_equal(vw_facts_probe(&f, sr, &err), 0);
	assert_int_equal(parse(&c, "devices = {\"0000:09:00\"}\n", &err), 0);
	assert_int_equal(vw_answers_devices(&c, &f, &idx, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(f.devs[idx[0]].addr, "0000:09:00.0");
	assert_string_equal(f.devs[idx[1]].addr, "0000:09:00.1");
	free(idx);
	assert_int_equal(parse(&c, "# x\ndevices = {\"0000:09:00.0\", \"0000:42:00.0\"}\n", &err), 0);
	assert_int_equal(vw_answers_check(&c, &f, &err), -ENODEV);
	assert_string_equal(err.msg, "a.conf:2: no PCI device 0000:42:00.0 on this host");
	assert_int_equal(parse(&c, "devices = {\"42:00\"}\n", &err), 0);
	assert_int_equal(vw_answers_check(&c, &f, &err), -ENODEV);
	assert_string_equal(err.msg, "a.conf:1: no PCI slot 0000:42:00 on this host");
	vw_choices_done(&c);
	vw_facts_done(&f);
	vw_sysroot_free(sr);
	free(root);
}

/* NVLink: the sets as the wizard read them, the explicit split, and what
 * must stay out of the VM. */
static void test_nvlink_keys(void **state)
{
	struct vw_choices c = { 0 };
	struct vw_err err = { 0 };

	(void)state;
	assert_int_equal(parse(&c, "devices = {\"18:00.0\"}\n", &err), 0);
	assert_false(c.nvlink_known);
	assert_false(c.split_nvlink);
	assert_int_equal(c.nkeep_out, 0);
	/* "{}" says "no set", which is not "not known". */
	assert_int_equal(parse(&c, "nvlink = {}\n", &err), 0);
	assert_true(c.nvlink_known);
	assert_int_equal(c.nnvlink, 0);
	assert_int_equal(parse(&c,
			       "nvlink = {\"0000:18:00.0,0000:2a:00.0,0000:06:00.0/NV18\", \"9a:00.0,0000:ab:00.0\"}\n"
			       "split_nvlink = true\nkeep_out = {\"2a:00.0\", \"0000:3a:00\"}\n",
			       &err), 0);
	assert_true(c.nvlink_known);
	assert_int_equal(c.nnvlink, 2);
	assert_string_equal(c.nvlink[1], "9a:00.0,0000:ab:00.0");
	assert_true(c.split_nvlink);
	assert_int_equal(c.nkeep_out, 2);
	assert_string_equal(c.keep_out[0], "0000:2a:00.0");
	assert_string_equal(c.keep_out[1], "0000:3a:00");
	vw_choices_done(&c);
	expect_error("\n\nnvlink = {\"0000:18:00.0\"}\n",
		     "a.conf:3: 'nvlink': NVLink state: a set needs at least two members");
	expect_error("nvlink = {\"0000:18:00.0,0000:2a:00.0\", \"0000:2a:00.0,0000:3a:00.0\"}\n",
		     "a.conf:1: 'nvlink': NVLink state: 0000:2a:00.0 is in two sets");
	expect_error("nvlink = {\"0000:18:00.0,zz\"}\n", "a.conf:1: 'nvlink': NVLink state: bad PCI address \"zz\"");
	expect_error("keep_out = {\"18:00.9\"}\n",
		     "a.conf:1: bad PCI address '18:00.9' in 'keep_out' (expected 0000:01:00.0, or 0000:01:00 for every function of a slot)");
}

/* ---- kernel command line ---------------------------------------------------- */

static char *edit1(const char *line, enum vw_kop op, const char *key, const char *value, bool *changed)
{
	struct vw_kedits e = { 0 };
	char *out;

	vw_kedits_add(&e, op, key, value, NULL);
	out = vw_cmdline_edit(line, &e, changed);
	vw_kedits_done(&e);
	return out;
}

#define EDIT(line, op, key, value, want)                                  \
	do {                                                                \
		char *got_ = edit1(line, op, key, value, NULL);              \
		assert_string_equal(got_, want);                            \
		free(got_);                                                 \
	} while (0)

static void test_cmdline_split_join(void **state)
{
	static const char *const lines[] = {
		"", "   ", "quiet", "  root=UUID=ab ro   quiet  ", "acpi_osi=\"Windows 2015\" x=\"a b\"c",
		"$GRUB_CMDLINE_LINUX_DEFAULT\tintel_iommu=on\n",
	};
	struct vw_cmdline l;

	(void)state;
	for (size_t i = 0; i < VW_ARRAY_SIZE(lines); i++) {
		char *s;

		vw_cmdline_split(&l, lines[i]);
		s = vw_cmdline_join(&l);
		assert_string_equal(s, lines[i]);
		free(s);
		vw_cmdline_done(&l);
	}
	vw_cmdline_split(&l, "a=\"b c\" d");
	assert_int_equal(l.n, 2);
	assert_string_equal(l.t[0].text, "a=\"b c\"");
	vw_cmdline_done(&l);
	{
		char *k = vw_ktok_key("\"acpi_osi=Windows 2015\"");
		assert_string_equal(k, "acpi_osi");
		free(k);
	}
	assert_true(vw_kparam_eq("vfio-pci.ids", "vfio_pci.ids"));
	assert_false(vw_kparam_eq("vfio-pci.ids", "vfio-pci.id"));
}

static void test_cmdline_set(void **state)
{
	bool changed;
	char *s;

	(void)state;
	EDIT("quiet", VW_KOP_SET, "iommu", "pt", "quiet iommu=pt");
	EDIT("", VW_KOP_SET, "iommu", "pt", "iommu=pt");
	EDIT("iommu=soft quiet", VW_KOP_SET, "iommu", "pt", "iommu=pt quiet");
	/* Earlier duplicates go, the last one is rewritten in place. */
	EDIT("iommu=off quiet iommu=soft splash", VW_KOP_SET, "iommu", "pt", "quiet iommu=pt splash");
	EDIT("quiet", VW_KOP_SET, "nomodeset", NULL, "quiet nomodeset");
	EDIT("a  b", VW_KOP_SET, "acpi_osi", "Windows 2015", "a  b acpi_osi=\"Windows 2015\"");
	/* Unchanged lines come back byte for byte. */
	s = edit1("  quiet   iommu=pt \n", VW_KOP_SET, "iommu", "pt", &changed);
	assert_false(changed);
	assert_string_equal(s, "  quiet   iommu=pt \n");
	free(s);
	s = edit1(" quiet", VW_KOP_SET, "iommu", "pt", &changed);
	assert_true(changed);
	assert_string_equal(s, " quiet iommu=pt");
	free(s);
}

static void test_cmdline_merge(void **state)
{
	(void)state;
	EDIT("quiet", VW_KOP_MERGE, "vfio-pci.ids", "10de:2204,10de:1aef", "quiet vfio-pci.ids=10de:2204,10de:1aef");
	/* Somebody else's ids stay; the spelling of the name stays. */
	EDIT("vfio_pci.ids=1002:67df quiet", VW_KOP_MERGE, "vfio-pci.ids", "10de:2204",
	     "vfio_pci.ids=1002:67df,10de:2204 quiet");
	EDIT("vfio-pci.ids=a:b x vfio-pci.ids=c:d", VW_KOP_MERGE, "vfio-pci.ids", "c:d,e:f",
	     "x vfio-pci.ids=a:b,c:d,e:f");
	EDIT("intel_iommu=igfx_off", VW_KOP_MERGE, "intel_iommu", "on", "intel_iommu=igfx_off,on");
	EDIT("intel_iommu=on", VW_KOP_MERGE, "intel_iommu", "on", "intel_iommu=on");
}

static void test_cmdline_remove(void **state)
{
	(void)state;
	EDIT("quiet intel_iommu=off splash", VW_KOP_REMOVE, "intel_iommu", "off", "quiet splash");
	EDIT("intel_iommu=off quiet", VW_KOP_REMOVE, "intel_iommu", "off", "quiet");
	EDIT("  intel_iommu=off  quiet", VW_KOP_REMOVE, "intel_iommu", "off", "  quiet");
	EDIT("intel_iommu=off", VW_KOP_REMOVE, "intel_iommu", "off", "");
	EDIT("intel-iommu=sm_on,off quiet", VW_KOP_REMOVE, "intel_iommu", "off", "intel-iommu=sm_on quiet");
	EDIT("iommu=pt quiet", VW_KOP_REMOVE, "iommu", "off", "iommu=pt quiet");
	EDIT("a BOOT_IMAGE=/vmlinuz b", VW_KOP_REMOVE, "BOOT_IMAGE", NULL, "a b");
	/* Not a parameter: "$VAR" tokens are never touched. */
	EDIT("$GRUB_CMDLINE_LINUX iommu=off", VW_KOP_REMOVE, "iommu", "off", "$GRUB_CMDLINE_LINUX");
}

static void test_cmdline_missing(void **state)
{
	struct vw_kedits e = { 0 };
	char *s;

	(void)state;
	vw_kedits_add(&e, VW_KOP_REMOVE, "intel_iommu", "off", NULL);
	vw_kedits_add(&e, VW_KOP_MERGE, "intel_iommu", "on", NULL);
	vw_kedits_add(&e, VW_KOP_SET, "iommu", "pt", NULL);
	vw_kedits_add(&e, VW_KOP_MERGE, "vfio-pci.ids", "10de:2204", NULL);
	s = vw_cmdline_missing("quiet", &e);
	assert_string_equal(s, "intel_iommu=on iommu=pt vfio-pci.ids=10de:2204");
	free(s);
	/* What holds already is not repeated; a merged list carries every id,
	 * since the last occurrence wins. */
	s = vw_cmdline_missing("intel_iommu=on vfio-pci.ids=1002:67df iommu=pt", &e);
	assert_string_equal(s, "vfio-pci.ids=1002:67df,10de:2204");
	free(s);
	s = vw_cmdline_missing("iommu=soft intel_iommu=on vfio-pci.ids=10de:2204", &e);
	assert_string_equal(s, "iommu=pt");
	free(s);
	assert_true(vw_cmdline_needs_removal("quiet intel_iommu=off", &e));
	assert_false(vw_cmdline_needs_removal("quiet intel_iommu=on", &e));
	vw_kedits_done(&e);
}

/* Quotes as the kernel reads them (lib/cmdline.c next_arg()), and lines
 * whose quotes an edit cannot keep (fuzz/findings/kcmdline-*). */
static void edit_twice(const char *line, const struct vw_kedits *e, const char *want)
{
	bool changed;
	char *once = vw_cmdline_edit(line, e, NULL), *twice = vw_cmdline_edit(once, e, &changed);

	assert_string_equal(once, want);
	assert_string_equal(twice, once);
	assert_false(changed);
	free(once);
	free(twice);
}

static void test_cmdline_quotes(void **state)
{
	struct vw_kedits e = { 0 };
	struct vw_err err = { 0 };
	struct vw_cmdline l;
	char *k;

	(void)state;
	/* A parameter inside quotes is part of the quoted one. */
	EDIT("acpi_osi=\"x intel_iommu=off\" quiet", VW_KOP_REMOVE, "intel_iommu", "off",
	     "acpi_osi=\"x intel_iommu=off\" quiet");
	EDIT("\"foo intel_iommu=off\"", VW_KOP_REMOVE, "intel_iommu", NULL, "\"foo intel_iommu=off\"");
	vw_cmdline_split(&l, "a=\"b intel_iommu=on\" c");
	assert_false(vw_cmdline_has(&l, "intel_iommu", NULL));
	assert_false(l.open_quote);
	vw_cmdline_done(&l);
	/* Only a '"' that opens the token or the value goes: the kernel reads
	 * intel_iommu=o"n" as the value o"n", and vfio"-"pci.ids is not
	 * vfio-pci.ids. */
	EDIT("intel_iommu=o\"n\"", VW_KOP_SET, "intel_iommu", "on", "intel_iommu=on");
	EDIT("iommu=\"pt\"", VW_KOP_SET, "iommu", "pt", "iommu=\"pt\"");
	EDIT("\"iommu=pt\"", VW_KOP_SET, "iommu", "pt", "\"iommu=pt\"");
	EDIT("vfio\"-\"pci.ids=1:2", VW_KOP_MERGE, "vfio-pci.ids", "3:4", "vfio\"-\"pci.ids=1:2 vfio-pci.ids=3:4");
	k = vw_ktok_key("\"quoted flag\"");
	assert_string_equal(k, "quoted flag");
	free(k);

	/* A '"' inside a merged list (the finding had a vertical tab inside
	 * the quotes): the items keep their quotes, the token stays one. */
	vw_kedits_add(&e, VW_KOP_MERGE, "vfio-pci.ids", "10de:2204,10de:1aef", NULL);
	edit_twice("ulash vfio-pci.ids=1+0de:B-\"8\vx\"8 z", &e,
		   "ulash vfio-pci.ids=1+0de:B-\"8\vx\"8,10de:2204,10de:1aef z");
	edit_twice("vfio-pci.ids=\"a b\" q", &e, "vfio-pci.ids=\"a b,10de:2204,10de:1aef\" q");
	/* Blanks other than space and tab are quoted too. */
	edit_twice("vfio-pci.ids=\"1\v2\"", &e, "vfio-pci.ids=\"1\v2,10de:2204,10de:1aef\"");
	assert_int_equal(vw_cmdline_check("vfio-pci.ids=a\"b c\"d", &e, "/etc/kernel/cmdline", &err), 0);

	/* An open quote: nothing is appended inside it, and the check names
	 * the file. */
	{
		static const char line[] = "quiet splash vfio-pci.ids=10de:2204,10de:1aef "
					   "vfio_pci.ids=10de:2204 \"unterminated";
		bool changed = true;
		char *s = vw_cmdline_edit(line, &e, &changed);

		assert_string_equal(s, line);
		assert_false(changed);
		free(s);
		vw_cmdline_split(&l, line);
		assert_true(l.open_quote);
		assert_false(vw_cmdline_apply(&l, &e));
		vw_cmdline_done(&l);
		assert_int_equal(vw_cmdline_check(line, &e, "/etc/kernel/cmdline", &err), -EINVAL);
		assert_true(vw_startswith(err.msg, "/etc/kernel/cmdline: the kernel command line has a '\"' that is never closed"));
	}
	vw_kedits_done(&e);

	/* An edit that cannot be written back: after removing vfio_pci the
	 * kernel value x,y"z (its first '"' was the value's opening one) has
	 * no spelling that reads back the same. */
	vw_kedits_add(&e, VW_KOP_REMOVE, "modprobe.blacklist", "vfio_pci", NULL);
	EDIT("modprobe.blacklist=\"x,vfio_pci,y\"z", VW_KOP_REMOVE, "modprobe.blacklist", "vfio_pci",
	     "modprobe.blacklist=\"x,vfio_pci,y\"z");
	assert_int_equal(vw_cmdline_check("modprobe.blacklist=\"x,vfio_pci,y\"z", &e, "/boot/x", &err), -EINVAL);
	assert_string_equal(err.msg, "/boot/x: the value of modprobe.blacklist holds a '\"' that cannot be written back after the edit; change it by hand");
	/* ... and one that can. */
	edit_twice("modprobe.blacklist=x\"y,vfio_pci,z\"w", &e, "modprobe.blacklist=x\"y,z\"w");
	assert_int_equal(vw_cmdline_check("quiet", &e, "/boot/x", NULL), 0);
	vw_kedits_done(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_example_file),
		cmocka_unit_test(test_nul_and_missing),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_gpu_mode),
		cmocka_unit_test(test_save_private),
		cmocka_unit_test(test_check_devices),
		cmocka_unit_test(test_nvlink_keys),
		cmocka_unit_test(test_cmdline_split_join),
		cmocka_unit_test(test_cmdline_set),
		cmocka_unit_test(test_cmdline_merge),
		cmocka_unit_test(test_cmdline_remove),
		cmocka_unit_test(test_cmdline_missing),
		cmocka_unit_test(test_cmdline_quotes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
