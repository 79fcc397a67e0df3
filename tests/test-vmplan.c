/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-vmplan.c - unit and golden tests of the VM step (libvirt, Proxmox).
 *
 * Every domain document generated here is also left in
 * $top_builddir/tests/out/vm-domains/ for tests/validate-libvirt.sh.
 */
#include "testutil.h"
#include "plan.h"
#include "exec.h"
#include "vmplan.h"
#include "template.h"
#include "vmfake.h"
#include "bars.h"
#include "findings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct env {
	char *root;
	struct vw_sysroot *sr;
	struct vw_plan plan;
	struct vw_vm_info info;
	struct vw_err err;
};

static void env_open(struct env *e)
{
	memset(e, 0, sizeof(*e));
	e->root = tu_mkroot();
	/* A libvirt host with the default image directory. */
	tu_mkdir(e->root, "var/lib/libvirt/images");
	tu_mkdir(e->root, "etc/libvirt/qemu");
	tu_write(e->root, "usr/bin/virsh", "");
	assert_int_equal(vw_sysroot_open(&e->sr, e->root, &e->err), 0);
	vw_plan_init(&e->plan);
}

static void env_close(struct env *e)
{
	vw_plan_done(&e->plan);
	vw_vm_info_done(&e->info);
	vw_sysroot_free(e->sr);
	tu_rmtree(e->root);
	free(e->root);
}

/* Plan; on failure print the message and fail. */
static void plan_ok(struct env *e, const struct vw_choices *c, struct fake_host *h)
{
	vw_plan_done(&e->plan);
	vw_plan_init(&e->plan);
	vw_vm_info_done(&e->info);
	vw_err_clear(&e->err);
	if (vw_vmplan_build(&e->plan, e->sr, &h->f, c, &h->u, &e->info, &e->err) != 0)
		fail_msg("vw_vmplan_build: %s", e->err.msg);
	assert_true(e->info.planned);
}

/* Write every change of the plan into the scratch root, as apply would. */
static void apply_all(struct env *e)
{
	for (size_t i = 0; i < e->plan.n; i++)
		tu_write_bytes(e->root, e->plan.v[i].path, e->plan.v[i].new_data, e->plan.v[i].new_len);
}

static bool has_post(const struct vw_plan *p, const char *cmd)
{
	for (size_t i = 0; p->post_cmds[i]; i++)
		if (strcmp(p->post_cmds[i], cmd) == 0)
			return true;
	return false;
}

/* Keep a generated domain for validate-libvirt.sh. */
static void keep_domain(const char *name, const struct vw_change *c)
{
	const char *b = getenv("top_builddir");
	char *dir;

	if (!b)
		return;
	dir = vw_xasprintf("%s/tests/out/vm-domains", b);
	tu_write_bytes(dir, name, c->new_data, c->new_len);
	free(dir);
}

static const struct vw_change *only_change(struct env *e, const char *path)
{
	const struct vw_change *c = vw_plan_find(&e->plan, path);

	assert_non_null(c);
	return c;
}

/* ---- templates and helpers ------------------------------------------------- */

static void test_template_expand(void **state)
{
	const struct vw_tvar vars[] = { { "A", "x" }, { "LONG_NAME2", "<y>" } };
	const char *text = "@A@-@LONG_NAME2@ @a@ @@ '@FirewallAPI.dll,-28752' me@example @A";
	struct vw_buf out = VW_BUF_INIT;
	struct vw_err err = { 0 };

	(void)state;
	assert_int_equal(vw_template_expand(&out, text, strlen(text), vars, 2, "t", &err), 0);
	assert_string_equal(out.data, "x-<y> @a@ @@ '@FirewallAPI.dll,-28752' me@example @A");
	vw_buf_done(&out);
	assert_int_equal(vw_template_expand(&out, "@NOPE@", 6, vars, 2, "t", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "@NOPE@"));
	vw_buf_done(&out);
}

static void test_template_dir(void **state)
{
	char *dir = vw_template_dir(), *text = NULL;
	struct vw_err err = { 0 };

	(void)state;
	assert_non_null(dir);
	free(dir);
	assert_int_equal(vw_template_load("libvirt-linux.xml", &text, NULL, &err), 0);
	assert_non_null(strstr(text, "<domain"));
	free(text);
	assert_true(vw_template_load("no-such-template", &text, NULL, &err) < 0);
	assert_null(text);
}

static void test_slots(void **state)
{
	struct fake_host h;
	struct vw_vm_slot *s;
	size_t n;

	(void)state;
	fake_turing(&h);
	n = vw_vm_slots(&h.f, &h.u, &s);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].ndevs, 4);
	assert_true(s[0].all_functions && s[0].gpu && s[0].vga && s[0].nvidia);
	vw_vm_slots_free(s, n);
	fake_done(&h);

	fake_nvswitch(&h);
	n = vw_vm_slots(&h.f, &h.u, &s);
	assert_int_equal(n, 12);
	assert_false(s[0].gpu);
	assert_true(s[4].gpu && !s[4].vga);
	vw_vm_slots_free(s, n);
	fake_done(&h);
}

static void test_code43_rule(void **state)
{
	struct fake_host h;
	struct vw_choices c;

	(void)state;
	fake_turing(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_WINDOWS, "x");
	assert_true(vw_vm_code43(&c, &h.f, &h.u));
	c.vm.hide_kvm = false;
	assert_false(vw_vm_code43(&c, &h.f, &h.u));
	c.vm.hide_kvm = true;
	c.vm.guest_os = VW_GUEST_LINUX;
	assert_false(vw_vm_code43(&c, &h.f, &h.u));
	fake_done(&h);
	fake_amd(&h);
	c.vm.guest_os = VW_GUEST_WINDOWS;
	assert_false(vw_vm_code43(&c, &h.f, &h.u));
	fake_done(&h);
	vw_choices_done(&c);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(vw_vm_name_ok("win11-gpu_1.test+x"));
	assert_false(vw_vm_name_ok(""));
	assert_false(vw_vm_name_ok("../etc"));
	assert_false(vw_vm_name_ok("a/b"));
	assert_false(vw_vm_name_ok(".hidden"));
	assert_false(vw_vm_name_ok("sp ace"));
	assert_false(vw_vm_name_ok("a'b"));
}

/* Each back end is found by its target and by the word of vm.target that
 * is its name, and the answers write that word back: a target is known
 * from its line in VW_VM_TARGETS alone. */
static void test_targets_by_name(void **state)
{
	size_t n = 0;

	(void)state;
	for (size_t i = 0; vw_vm_backends[i]; i++, n++) {
		const struct vw_vm_ops *b = vw_vm_backends[i];
		char *text = vw_xasprintf("vm {\n  target = %s\n  name = \"x\"\n}\n", b->name);
		char *line = vw_xasprintf("\n  target = %s\n", b->name);
		struct vw_buf out = VW_BUF_INIT;
		struct vw_choices c;
		struct vw_err err = { 0 };

		memset(&c, 0, sizeof(c));
		assert_int_equal(vw_answers_parse(&c, text, strlen(text), "t.conf", &err), 0);
		assert_int_equal(c.vm.target, b->target);
		assert_ptr_equal(vw_vm_ops_get(b->target), b);
		vw_answers_format(&out, &c);
		assert_non_null(strstr(out.data, line));
		assert_non_null(b->label);
		assert_non_null(b->product);
		vw_buf_done(&out);
		vw_choices_done(&c);
		free(line);
		free(text);
	}
	assert_int_equal(n, VW_VM_TARGET_COUNT);
	/* Not a target: the answers' default, whose value is 0. */
	assert_int_equal(vw_vm_ops_get((enum vw_vm_target)VW_VM_TARGET_COUNT)->target, 0);
	assert_string_equal(vw_vm_ops_get((enum vw_vm_target)0)->name, "libvirt");
}

/* ---- libvirt --------------------------------------------------------------- */

static void test_libvirt_new_windows(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;

	(void)state;
	env_open(&e);
	fake_turing(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_WINDOWS, "win11");
	c.vm.memory_mib = 16384;
	c.vm.vcpus = 8;
	c.vm.storage_size_gib = 120;
	plan_ok(&e, &c, &h);
	assert_int_equal(e.plan.n, 1);
	ch = only_change(&e, "etc/vfiowiz/libvirt/win11.xml");
	/* The VNC password makes it a secret: 0600, never in logs. */
	assert_true(ch->secret);
	assert_int_equal(ch->mode, 0600);
	assert_false(ch->old_exists);
	assert_non_null(strstr(ch->new_data, "passwd=\"s3cret\""));
	assert_non_null(strstr(ch->new_data, "<hidden state=\"on\"/>"));
	assert_non_null(strstr(ch->new_data, "vendor_id"));
	assert_int_equal(e.plan.npost, 2);
	assert_string_equal(e.plan.post_cmds[0],
			    "qemu-img create -f qcow2 /var/lib/libvirt/images/win11.qcow2 120G");
	assert_string_equal(e.plan.post_cmds[1], "virsh define /etc/vfiowiz/libvirt/win11.xml");
	for (size_t i = 0; e.plan.post_cmds[i]; i++)
		assert_null(strstr(e.plan.post_cmds[i], "s3cret"));
	assert_string_equal(e.info.config_path, "etc/vfiowiz/libvirt/win11.xml");
	assert_true(e.info.created && e.info.vnc);
	golden("libvirt-new-windows-turing.xml", ch->new_data, ch->new_len);
	keep_domain("new-windows-turing.xml", ch);

	/* Planned again after the apply (and qemu-img): nothing to do. */
	apply_all(&e);
	tu_write(e.root, "var/lib/libvirt/images/win11.qcow2", "QFI\xfb");
	plan_ok(&e, &c, &h);
	assert_int_equal(e.plan.n, 0);
	assert_int_equal(e.plan.npost, 0);

	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

static void test_libvirt_new_linux_novnc(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;

	(void)state;
	env_open(&e);
	fake_amd(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_LINUX, "fedora");
	c.access.vnc = false;
	plan_ok(&e, &c, &h);
	ch = only_change(&e, "etc/vfiowiz/libvirt/fedora.xml");
	assert_false(ch->secret);
	assert_int_equal(ch->mode, 0600);
	assert_null(strstr(ch->new_data, "graphics"));
	assert_null(strstr(ch->new_data, "tablet"));
	assert_null(strstr(ch->new_data, "hidden"));
	assert_non_null(strstr(ch->new_data, "<model type=\"none\"/>"));
	golden("libvirt-new-linux-amd.xml", ch->new_data, ch->new_len);
	keep_domain("new-linux-amd.xml", ch);
	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

static void test_libvirt_new_nvswitch(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;
	const char *p;
	size_t n = 0;

	(void)state;
	env_open(&e);
	fake_nvswitch(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_LINUX, "hgx");
	c.vm.memory_mib = 1 << 20;
	c.vm.vcpus = 96;
	c.access.vnc = false;
	plan_ok(&e, &c, &h);
	ch = only_change(&e, "etc/vfiowiz/libvirt/hgx.xml");
	for (p = ch->new_data; (p = strstr(p, "<hostdev ")); p++)
		n++;
	assert_int_equal(n, 12);
	n = 0;
	for (p = ch->new_data; (p = strstr(p, "pcie-root-port")); p++)
		n++;
	assert_int_equal(n, 12);
	/* One function per slot: no multifunction. */
	assert_null(strstr(ch->new_data, "multifunction"));
	golden("libvirt-new-linux-nvswitch.xml", ch->new_data, ch->new_len);
	keep_domain("new-linux-nvswitch.xml", ch);
	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

/* What virt-manager leaves in /etc/libvirt/qemu for a Windows 11 guest. */
static const char existing_q35[] =
	"<!--\n"
	"WARNING: THIS IS AN AUTO-GENERATED FILE. CHANGES TO IT ARE LIKELY TO BE\n"
	"OVERWRITTEN AND LOST. Changes to this xml configuration should be made using:\n"
	"  virsh edit gaming\n"
	"or other application using the libvirt API.\n"
	"-->\n"
	"\n"
	"<domain type='kvm'>\n"
	"  <name>gaming</name>\n"
	"  <uuid>7f4a1c7e-5c1b-4a4e-9d0e-2b8e0e9d8c11</uuid>\n"
	"  <description>My gaming VM &amp; more</description>\n"
	"  <memory unit='KiB'>16777216</memory>\n"
	"  <currentMemory unit='KiB'>16777216</currentMemory>\n"
	"  <vcpu placement='static'>8</vcpu>\n"
	"  <os firmware='efi'>\n"
	"    <type arch='x86_64' machine='pc-q35-7.2'>hvm</type>\n"
	"    <boot dev='hd'/>\n"
	"  </os>\n"
	"  <features>\n"
	"    <acpi/>\n"
	"    <apic/>\n"
	"    <hyperv mode='custom'>\n"
	"      <relaxed state='on'/>\n"
	"      <vapic state='on'/>\n"
	"      <spinlocks state='on' retries='8191'/>\n"
	"    </hyperv>\n"
	"    <vmport state='off'/>\n"
	"  </features>\n"
	"  <cpu mode='host-passthrough' check='none' migratable='on'/>\n"
	"  <clock offset='localtime'>\n"
	"    <timer name='hypervclock' present='yes'/>\n"
	"  </clock>\n"
	"  <devices>\n"
	"    <emulator>/usr/bin/qemu-system-x86_64</emulator>\n"
	"    <disk type='file' device='disk'>\n"
	"      <driver name='qemu' type='qcow2'/>\n"
	"      <source file='/var/lib/libvirt/images/gaming.qcow2'/>\n"
	"      <target dev='sda' bus='sata'/>\n"
	"      <address type='drive' controller='0' bus='0' target='0' unit='0'/>\n"
	"    </disk>\n"
	"    <controller type='usb' index='0' model='qemu-xhci' ports='15'>\n"
	"      <address type='pci' domain='0x0000' bus='0x02' slot='0x00' function='0x0'/>\n"
	"    </controller>\n"
	"    <controller type='pci' index='0' model='pcie-root'/>\n"
	"    <controller type='pci' index='1' model='pcie-root-port'>\n"
	"      <model name='pcie-root-port'/>\n"
	"      <target chassis='1' port='0x10'/>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x02' function='0x0' multifunction='on'/>\n"
	"    </controller>\n"
	"    <controller type='pci' index='2' model='pcie-root-port'>\n"
	"      <model name='pcie-root-port'/>\n"
	"      <target chassis='2' port='0x11'/>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x02' function='0x1'/>\n"
	"    </controller>\n"
	"    <controller type='sata' index='0'>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x1f' function='0x2'/>\n"
	"    </controller>\n"
	"    <interface type='network'>\n"
	"      <mac address='52:54:00:aa:bb:cc'/>\n"
	"      <source network='default'/>\n"
	"      <model type='e1000e'/>\n"
	"      <address type='pci' domain='0x0000' bus='0x01' slot='0x00' function='0x0'/>\n"
	"    </interface>\n"
	"    <graphics type='spice' autoport='yes'>\n"
	"      <listen type='address'/>\n"
	"      <image compression='off'/>\n"
	"    </graphics>\n"
	"    <video>\n"
	"      <model type='qxl' ram='65536' vram='65536' vgamem='16384' heads='1' primary='yes'/>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x01' function='0x0'/>\n"
	"    </video>\n"
	"    <memballoon model='virtio'>\n"
	"      <address type='pci' domain='0x0000' bus='0x03' slot='0x00' function='0x0'/>\n"
	"    </memballoon>\n"
	"  </devices>\n"
	"</domain>\n";

static void test_libvirt_existing(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;
	char *again;

	(void)state;
	env_open(&e);
	tu_write(e.root, "etc/libvirt/qemu/gaming.xml", existing_q35);
	fake_turing(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_WINDOWS, "gaming");
	c.vm.existing = true;
	plan_ok(&e, &c, &h);
	/* libvirt's own file is never touched: ours is written and defined. */
	assert_null(vw_plan_find(&e.plan, "etc/libvirt/qemu/gaming.xml"));
	ch = only_change(&e, "etc/vfiowiz/libvirt/gaming.xml");
	assert_true(ch->secret);
	assert_null(strstr(ch->new_data, "AUTO-GENERATED"));
	/* Everything else kept: uuid, description, spice, sata disk, qxl. */
	assert_non_null(strstr(ch->new_data, "7f4a1c7e-5c1b-4a4e-9d0e-2b8e0e9d8c11"));
	assert_non_null(strstr(ch->new_data, "My gaming VM &amp; more"));
	assert_non_null(strstr(ch->new_data, "type=\"spice\""));
	assert_non_null(strstr(ch->new_data, "bus=\"sata\""));
	assert_non_null(strstr(ch->new_data, "type=\"qxl\""));
	/* New root ports after the highest bus in use (3). */
	assert_non_null(strstr(ch->new_data, "index=\"4\" model=\"pcie-root-port\""));
	assert_int_equal(e.plan.npost, 1);
	assert_string_equal(e.plan.post_cmds[0], "virsh define /etc/vfiowiz/libvirt/gaming.xml");
	golden("libvirt-existing-q35.xml", ch->new_data, ch->new_len);
	keep_domain("existing-q35.xml", ch);

	/* libvirt defined it: its file now holds our bytes.  Nothing more. */
	again = vw_xstrndup(ch->new_data, ch->new_len);
	tu_write(e.root, "etc/libvirt/qemu/gaming.xml", again);
	free(again);
	plan_ok(&e, &c, &h);
	assert_int_equal(e.plan.n, 0);
	assert_true(e.info.nnotes >= 1);

	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

/* Looking Glass: the buffer size, the shmem device and the kvmfr command
 * line on an existing domain, each planned once (a second plan is empty),
 * and the refusal without a display the host keeps. */
static void test_looking_glass(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;
	char *again;

	(void)state;
	assert_int_equal(vw_lg_size_mib(1920, 1080), 32);
	assert_int_equal(vw_lg_size_mib(2560, 1440), 64);
	assert_int_equal(vw_lg_size_mib(3840, 2160), 128);
	assert_int_equal(vw_lg_size_mib(320, 200), 16);
	/* 7680x4320: 253.1 MiB + 10 -> 512. */
	assert_int_equal(vw_lg_size_mib(7680, 4320), 512);

	env_open(&e);
	tu_write(e.root, "etc/libvirt/qemu/gaming.xml", existing_q35);
	fake_turing(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_WINDOWS, "gaming");
	c.vm.existing = true;
	c.access.vnc = false;
	c.vm.looking_glass = VW_LG_IVSHMEM;
	c.vm.lg_width = 2560;
	c.vm.lg_height = 1440;
	fake_set(&c.access.ssh_user, "alice");
	plan_ok(&e, &c, &h);
	ch = only_change(&e, "etc/vfiowiz/libvirt/gaming.xml");
	assert_non_null(strstr(ch->new_data, "<shmem name=\"looking-glass\">\n"
					     "      <model type=\"ivshmem-plain\"/>\n"
					     "      <size unit=\"M\">64</size>\n"
					     "    </shmem>"));
	keep_domain("looking-glass-ivshmem.xml", ch);
	ch = only_change(&e, "etc/tmpfiles.d/10-looking-glass.conf");
	assert_non_null(strstr(ch->new_data, "f /dev/shm/looking-glass 0660 alice kvm -\n"));
	assert_true(has_post(&e.plan, "systemd-tmpfiles --create /etc/tmpfiles.d/10-looking-glass.conf"));
	apply_all(&e);
	again = vw_xstrndup(vw_plan_find(&e.plan, "etc/vfiowiz/libvirt/gaming.xml")->new_data,
			    vw_plan_find(&e.plan, "etc/vfiowiz/libvirt/gaming.xml")->new_len);
	tu_write(e.root, "etc/libvirt/qemu/gaming.xml", again);
	free(again);
	plan_ok(&e, &c, &h);
	assert_int_equal(e.plan.n, 0);

	/* kvmfr instead, for 4K: the shmem goes, the command line comes. */
	c.vm.looking_glass = VW_LG_KVMFR;
	c.vm.lg_width = 3840;
	c.vm.lg_height = 2160;
	plan_ok(&e, &c, &h);
	ch = only_change(&e, "etc/vfiowiz/libvirt/gaming.xml");
	assert_null(strstr(ch->new_data, "<shmem"));
	assert_non_null(strstr(ch->new_data, "xmlns:qemu=\"http://libvirt.org/schemas/domain/qemu/1.0\""));
	assert_non_null(strstr(ch->new_data, "&quot;mem-path&quot;:&quot;/dev/kvmfr0&quot;,&quot;size&quot;:134217728,"));
	keep_domain("looking-glass-kvmfr.xml", ch);
	ch = only_change(&e, "etc/modprobe.d/kvmfr.conf");
	assert_non_null(strstr(ch->new_data, "options kvmfr static_size_mb=128\n"));
	ch = only_change(&e, "etc/udev/rules.d/99-kvmfr.rules");
	assert_non_null(strstr(ch->new_data, "OWNER=\"alice\", GROUP=\"kvm\""));
	assert_non_null(vw_plan_find(&e.plan, "etc/modules-load.d/kvmfr.conf"));
	apply_all(&e);
	again = vw_xstrndup(vw_plan_find(&e.plan, "etc/vfiowiz/libvirt/gaming.xml")->new_data,
			    vw_plan_find(&e.plan, "etc/vfiowiz/libvirt/gaming.xml")->new_len);
	tu_write(e.root, "etc/libvirt/qemu/gaming.xml", again);
	free(again);
	plan_ok(&e, &c, &h);
	assert_int_equal(e.plan.n, 0);

	/* No display left to the host: refused, naming the key's line. */
	h.u.only_display = true;
	c.source = (free(c.source), vw_xstrdup("a.conf"));
	c.looking_glass_line = 9;
	vw_vm_info_done(&e.info);
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EPERM);
	assert_non_null(strstr(e.err.msg, "a.conf:9: looking_glass needs a display the host keeps"));
	h.u.only_display = false;
	c.vm.target = VW_VM_PROXMOX;
	vw_vm_info_done(&e.info);
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EINVAL);

	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

static const char existing_pc[] =
	"<domain type='kvm'>\n"
	"  <name>old</name>\n"
	"  <memory unit='KiB'>4194304</memory>\n"
	"  <vcpu>2</vcpu>\n"
	"  <os><type arch='x86_64' machine='pc-i440fx-7.2'>hvm</type></os>\n"
	"  <devices>\n"
	"    <controller type='pci' index='0' model='pci-root'/>\n"
	"    <interface type='network'><source network='default'/><model type='virtio'/>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x03' function='0x0'/></interface>\n"
	"    <hostdev mode='subsystem' type='pci' managed='yes'>\n"
	"      <source><address domain='0x0000' bus='0x0c' slot='0x00' function='0x0'/></source>\n"
	"      <address type='pci' domain='0x0000' bus='0x00' slot='0x05' function='0x0'/></hostdev>\n"
	"  </devices>\n"
	"</domain>\n";

static void test_libvirt_existing_pc(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;

	(void)state;
	env_open(&e);
	tu_write(e.root, "etc/libvirt/qemu/old.xml", existing_pc);
	fake_amd(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_LINUX, "old");
	c.vm.existing = true;
	c.access.vnc = false;
	plan_ok(&e, &c, &h);
	ch = only_change(&e, "etc/vfiowiz/libvirt/old.xml");
	/* No root ports on i440fx: a free slot of bus 0, the old entry for
	 * function 0 replaced so that both functions sit together. */
	assert_null(strstr(ch->new_data, "pcie-root-port"));
	assert_non_null(strstr(ch->new_data,
			       "bus=\"0x00\" slot=\"0x04\" function=\"0x0\" multifunction=\"on\""));
	assert_non_null(strstr(ch->new_data, "bus=\"0x00\" slot=\"0x04\" function=\"0x1\""));
	golden("libvirt-existing-pc.xml", ch->new_data, ch->new_len);
	keep_domain("existing-pc.xml", ch);
	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

static void pve_root(struct env *e);

/* An H100-like 3D controller with real BAR sizes: 16 MiB (32-bit),
 * 128 GiB and 32 MiB (64-bit prefetchable). */
static void fake_h100(struct fake_host *h)
{
	struct vw_pci_dev *d;

	memset(h, 0, sizeof(*h));
	fake_dev(h, "0000:18:00.0", 0x10de, 0x2330, 0x030200, 20, true);
	d = &h->f.devs[0];
	d->bars[0] = (struct vw_bar){ .start = 0xc2000000, .size = 16u << 20, .flags = 0x40200 };
	d->bars[2] = (struct vw_bar){ .start = 0x200000000000ull, .size = 128ull << 30, .flags = 0x14220c };
	d->bars[4] = (struct vw_bar){ .start = 0x202000000000ull, .size = 32u << 20, .flags = 0x14220c };
}

static void test_large_bars(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;
	struct vw_vm_bars b;
	char *again;

	(void)state;
	fake_h100(&h);
	vw_vm_bars_get(&h.f, &h.u, &b);
	assert_true(b.large);
	assert_true(b.sum64 == (128ull << 30) + (32u << 20));
	/* 128 GiB + 32 MiB, plus a quarter: the next power of two is 256 GiB. */
	assert_int_equal(b.mmio_mb, 262144);

	/* New domain, libvirt version unknown: maxphysaddr and the window. */
	env_open(&e);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_LINUX, "ai");
	plan_ok(&e, &c, &h);
	ch = only_change(&e, "etc/vfiowiz/libvirt/ai.xml");
	assert_non_null(strstr(ch->new_data, "<cpu mode=\"host-passthrough\""));
	assert_non_null(strstr(ch->new_data, "<maxphysaddr mode=\"passthrough\"/>"));
	assert_non_null(strstr(ch->new_data, "<qemu:arg value=\"name=opt/ovmf/X-PciMmio64Mb,string=262144\"/>"));
	keep_domain("large-bar-new.xml", ch);

	/* Defined: planning it again as an existing domain changes nothing. */
	again = vw_xstrndup(ch->new_data, ch->new_len);
	tu_write(e.root, "etc/libvirt/qemu/ai.xml", again);
	free(again);
	c.vm.existing = true;
	plan_ok(&e, &c, &h);
	assert_int_equal(e.plan.n, 0);

	/* An older window is replaced, not doubled; libvirt 8.0 gets QEMU's
	 * host-phys-bits instead of <maxphysaddr>. */
	tu_write(e.root, "etc/libvirt/qemu/ai.xml",
		 "<domain type='kvm' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n"
		 "  <name>ai</name><memory unit='GiB'>64</memory><vcpu>8</vcpu>\n"
		 "  <os firmware='efi'><type arch='x86_64' machine='pc-q35-8.2'>hvm</type></os>\n"
		 "  <cpu mode='host-model'/>\n"
		 "  <devices><emulator>/usr/bin/qemu-system-x86_64</emulator></devices>\n"
		 "  <qemu:commandline><qemu:arg value='-fw_cfg'/>"
		 "<qemu:arg value='name=opt/ovmf/X-PciMmio64Mb,string=65536'/></qemu:commandline>\n"
		 "</domain>\n");
	tu_write(e.root, ".vfiowiz/cmd/virsh_--version", "8.0.0\n");
	plan_ok(&e, &c, &h);
	ch = only_change(&e, "etc/vfiowiz/libvirt/ai.xml");
	assert_null(strstr(ch->new_data, "string=65536"));
	assert_null(strstr(ch->new_data, "maxphysaddr"));
	assert_non_null(strstr(ch->new_data, "<cpu mode=\"host-passthrough\""));
	assert_non_null(strstr(ch->new_data, "host-x86_64-cpu.host-phys-bits=on"));
	assert_non_null(strstr(ch->new_data, "string=262144"));
	keep_domain("large-bar-old-libvirt.xml", ch);

	/* i440fx cannot map a 128 GiB BAR: refused. */
	tu_write(e.root, "etc/libvirt/qemu/ai.xml", existing_pc);
	vw_choices_done(&c);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_LINUX, "old");
	c.vm.existing = true;
	tu_write(e.root, "etc/libvirt/qemu/old.xml", existing_pc);
	vw_plan_done(&e.plan);
	vw_plan_init(&e.plan);
	vw_vm_info_done(&e.info);
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EINVAL);
	assert_non_null(strstr(e.err.msg, "128 GiB"));
	vw_choices_done(&c);
	env_close(&e);

	/* Proxmox, existing VM: phys-bits added to cpu, other args kept. */
	env_open(&e);
	pve_root(&e);
	tu_write(e.root, "etc/pve/nodes/pve1/qemu-server/120.conf",
		 "args: -device foo -fw_cfg name=opt/ovmf/X-PciMmio64Mb,string=1024\n"
		 "bios: ovmf\ncpu: host,flags=+aes\nmachine: q35\nmemory: 65536\nname: ai\n");
	fake_choices(&c, VW_VM_PROXMOX, VW_GUEST_LINUX, "ai");
	c.vm.existing = true;
	plan_ok(&e, &c, &h);
	ch = only_change(&e, "etc/pve/qemu-server/120.conf");
	assert_non_null(strstr(ch->new_data, "args: -device foo -fw_cfg name=opt/ovmf/X-PciMmio64Mb,string=262144\n"));
	assert_non_null(strstr(ch->new_data, "cpu: host,flags=+aes,phys-bits=host\n"));
	apply_all(&e);
	plan_ok(&e, &c, &h);
	assert_int_equal(e.plan.n, 0);
	/* SeaBIOS: refused. */
	tu_write(e.root, "etc/pve/nodes/pve1/qemu-server/120.conf", "machine: q35\nmemory: 65536\nname: ai\n");
	vw_plan_done(&e.plan);
	vw_plan_init(&e.plan);
	vw_vm_info_done(&e.info);
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EINVAL);
	vw_choices_done(&c);
	env_close(&e);
	fake_done(&h);
}

static void test_libvirt_existing_recorded(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const char *argv[] = { "virsh", "dumpxml", "--inactive", "--security-info", "gaming", NULL };
	char *key = vw_exec_key(argv), *rel = vw_xasprintf(".vfiowiz/cmd/%s", key);

	(void)state;
	env_open(&e);
	fake_turing(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_WINDOWS, "gaming");
	c.vm.existing = true;
	/* Neither a file nor a recording. */
	assert_true(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err) < 0);
	vw_vm_info_done(&e.info);
	/* A snapshot's recorded dumpxml is used when libvirt's file is absent. */
	tu_write(e.root, rel, existing_q35);
	plan_ok(&e, &c, &h);
	assert_non_null(vw_plan_find(&e.plan, "etc/vfiowiz/libvirt/gaming.xml"));
	free(key);
	free(rel);
	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

static void test_libvirt_refusals(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;

	(void)state;
	env_open(&e);
	fake_turing(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_WINDOWS, "gaming");

	/* A libvirt domain of that name that is not ours. */
	tu_write(e.root, "etc/libvirt/qemu/gaming.xml", existing_q35);
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EEXIST);
	vw_vm_info_done(&e.info);

	/* libvirt rejects VNC passwords over 8 characters at define time. */
	fake_set(&c.vm.name, "fresh");
	fake_set(&c.access.vnc_password, "123456789");
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EINVAL);
	assert_non_null(strstr(e.err.msg, "8"));
	assert_null(strstr(e.err.msg, "123456789"));
	vw_vm_info_done(&e.info);
	fake_set(&c.access.vnc_password, "");
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EINVAL);
	vw_vm_info_done(&e.info);
	fake_set(&c.access.vnc_password, "ok");

	/* A name that would leave our directory. */
	fake_set(&c.vm.name, "../../etc/passwd");
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EINVAL);
	vw_vm_info_done(&e.info);
	fake_set(&c.vm.name, "fresh");

	/* A new image where a file exists already: qemu-img would wipe it. */
	tu_write(e.root, "var/lib/libvirt/images/fresh.qcow2", "data");
	assert_true(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err) < 0);
	vw_vm_info_done(&e.info);

	/* An existing image is used as it is, its format read from it. */
	c.vm.storage_type = VW_STORAGE_IMAGE;
	fake_set(&c.vm.storage_path, "/var/lib/libvirt/images/fresh.qcow2");
	{
		char hdr[64] = "QFI\xfb\0\0\0\3";

		tu_write_bytes(e.root, "var/lib/libvirt/images/fresh.qcow2", hdr, sizeof(hdr));
	}
	plan_ok(&e, &c, &h);
	assert_non_null(strstr(only_change(&e, "etc/vfiowiz/libvirt/fresh.xml")->new_data,
			       "type=\"qcow2\""));
	assert_int_equal(e.plan.npost, 1);

	/* No devices: nothing to give the VM. */
	{
		struct vw_unit empty = { 0 };

		vw_vm_info_done(&e.info);
		assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &empty, &e.info, &e.err), -EINVAL);
	}
	/* No VM in the answers: nothing planned, no error. */
	vw_vm_info_done(&e.info);
	fake_set(&c.vm.name, "");
	vw_plan_done(&e.plan);
	vw_plan_init(&e.plan);
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), 0);
	assert_false(e.info.planned);
	assert_int_equal(e.plan.n, 0);

	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

/* Strings that would make XML libvirt rejects (issue 14 item 10): refused
 * before anything is planned, whoever filled the choices. */
static void test_libvirt_bad_text(void **state)
{
	static const char *const paths[] = {
		"/var/lib/libvirt/images/a\x01" "b.qcow2", "/var/lib/libvirt/images/\xff\xfe.qcow2",
		"/var/lib/libvirt/images/a\x1b[2J.qcow2",
	};
	static const char *const passwords[] = { "\xff\xfe", "a\xc2\x85" "b", "a\x7f" };
	struct env e;
	struct fake_host h;
	struct vw_choices c;

	(void)state;
	env_open(&e);
	fake_turing(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_WINDOWS, "fresh");
	fake_set(&c.access.vnc_password, "ok");
	for (size_t i = 0; i < VW_ARRAY_SIZE(paths); i++) {
		fake_set(&c.vm.storage_path, paths[i]);
		assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EINVAL);
		assert_int_equal(e.plan.n, 0);
		vw_vm_info_done(&e.info);
	}
	fake_set(&c.vm.storage_path, "");
	for (size_t i = 0; i < VW_ARRAY_SIZE(passwords); i++) {
		fake_set(&c.access.vnc_password, passwords[i]);
		assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EINVAL);
		assert_int_equal(e.plan.n, 0);
		vw_vm_info_done(&e.info);
	}
	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

static void test_libvirt_hostile(void **state)
{
	static const char *const bad[] = {
		"not xml at all",
		"<!DOCTYPE domain [<!ENTITY x SYSTEM 'file:///etc/shadow'>]><domain><name>h</name><devices/></domain>",
		"<network><name>h</name></network>",
		"<domain><name>other</name><devices/></domain>",
		"<domain><name>h</name></domain>",
		"<domain xmlns='urn:x'><name>h</name><devices/></domain>",
	};
	struct env e;
	struct fake_host h;
	struct vw_choices c;

	(void)state;
	env_open(&e);
	fake_amd(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_LINUX, "h");
	c.vm.existing = true;
	for (size_t i = 0; i < VW_ARRAY_SIZE(bad); i++) {
		tu_write(e.root, "etc/libvirt/qemu/h.xml", bad[i]);
		vw_err_clear(&e.err);
		assert_true(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err) < 0);
		assert_true(e.err.msg[0] != '\0');
		assert_null(strstr(e.err.msg, "root:"));
		vw_vm_info_done(&e.info);
	}
	assert_int_equal(e.plan.n, 0);
	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

/* ---- Proxmox --------------------------------------------------------------- */

static const char storage_cfg[] =
	"dir: local\n"
	"\tpath /var/lib/vz\n"
	"\tcontent iso,vztmpl,backup\n"
	"\n"
	"lvmthin: local-lvm\n"
	"\tthinpool data\n"
	"\tvgname pve\n"
	"\tcontent rootdir,images\n";

static void pve_root(struct env *e)
{
	tu_write(e->root, "etc/pve/storage.cfg", storage_cfg);
	tu_write(e->root, "etc/hostname", "pve1.example.org\n");
	tu_mkdir(e->root, "etc/pve/nodes/pve1/qemu-server");
	tu_symlink(e->root, "etc/pve/qemu-server", "nodes/pve1/qemu-server");
	tu_write(e->root, "usr/sbin/qm", "");
}

static void check_hostpci_lines(const char *conf)
{
	struct vw_err err = { 0 };
	size_t n = 0;

	for (const char *p = conf; (p = strstr(p, "\nhostpci")); p++) {
		const char *v = strstr(p, ": ") + 2;
		char *value = vw_xstrndup(v, strcspn(v, "\n"));

		if (!vw_pve_hostpci_valid(value, &err))
			fail_msg("hostpci value '%s': %s", value, err.msg);
		free(value);
		n++;
	}
	assert_true(n > 0);
}

static void test_pve_next_vmid(void **state)
{
	struct env e;

	(void)state;
	env_open(&e);
	assert_int_equal(vw_pve_next_vmid(e.sr), 100);
	pve_root(&e);
	tu_write(e.root, "etc/pve/nodes/pve1/qemu-server/100.conf", "name: a\n");
	tu_write(e.root, "etc/pve/nodes/pve1/qemu-server/105.conf", "name: b\n");
	tu_write(e.root, "etc/pve/nodes/pve1/qemu-server/notes.txt", "");
	tu_write(e.root, "etc/pve/nodes/pve2/qemu-server/110.conf", "name: c\n");
	tu_write(e.root, "etc/pve/nodes/pve2/lxc/120.conf", "hostname: d\n");
	assert_int_equal(vw_pve_next_vmid(e.sr), 121);
	env_close(&e);
}

static void test_pve_hostpci_syntax(void **state)
{
	static const char *const good[] = {
		"0000:01:00,pcie=1,x-vga=1", "01:00.0", "host=0000:01:00.1;0000:01:00.2",
		"mapping=gpu0,pcie=1", "0000:41:00,rombar=0,romfile=vbios.bin",
		"01:00,device-id=0x1234,driver=vfio", "00000000:01:00", "01:00,legacy-igd=1",
	};
	static const char *const bad[] = {
		"", "0000:01:00,pcie=2", "0000:1:00", "0000:01:00.8", "0000:01:00,foo=1",
		"mapping=gpu0,host=01:00", "0000:01:00,pcie=1,pcie=1", "0000:01:00,01:00",
		"0000:01:00,romfile=../../etc/passwd", "0000:01:00,x-vga", "0000:0G:00",
		"pcie=1", "0000:01:00,driver=nvidia", "0000:01:00.0;", "0000:01:00:00",
	};
	struct vw_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < VW_ARRAY_SIZE(good); i++)
		if (!vw_pve_hostpci_valid(good[i], &err))
			fail_msg("'%s' refused: %s", good[i], err.msg);
	for (size_t i = 0; i < VW_ARRAY_SIZE(bad); i++)
		if (vw_pve_hostpci_valid(bad[i], &err))
			fail_msg("'%s' accepted", bad[i]);
}

static void test_pve_new_windows(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;

	(void)state;
	env_open(&e);
	pve_root(&e);
	tu_write(e.root, "etc/pve/nodes/pve1/qemu-server/100.conf", "name: other\n");
	fake_turing(&h);
	fake_choices(&c, VW_VM_PROXMOX, VW_GUEST_WINDOWS, "win11");
	c.access.vnc = false;
	c.access.rdp = true;
	plan_ok(&e, &c, &h);
	assert_int_equal(e.info.vmid, 101);
	ch = only_change(&e, "etc/pve/qemu-server/101.conf");
	assert_int_equal(ch->mode, 0640);
	/* Windows Setup needs a display: the emulated one stays (Proxmox's
	 * console) and the GPU is not primary until Remote Desktop works. */
	assert_true(e.info.install_display);
	assert_non_null(strstr(ch->new_data, "hostpci0: 0000:01:00,pcie=1\n"));
	assert_null(strstr(ch->new_data, "vga: none\n"));
	assert_non_null(strstr(ch->new_data, "cpu: host,hidden=1\n"));
	assert_non_null(strstr(ch->new_data, "bios: ovmf\n"));
	assert_non_null(strstr(ch->new_data, "machine: q35\n"));
	assert_non_null(strstr(ch->new_data, "ostype: win11\n"));
	/* Volumes are allocated by Proxmox, not written. */
	assert_null(strstr(ch->new_data, "\nefidisk0:"));
	assert_null(strstr(ch->new_data, "\nscsi0:"));
	assert_null(strstr(ch->new_data, "\ntpmstate0:"));
	assert_true(has_post(&e.plan, "qm set 101 --efidisk0 local-lvm:1,efitype=4m,pre-enrolled-keys=1"));
	assert_true(has_post(&e.plan, "qm set 101 --scsi0 local-lvm:64,discard=on,iothread=1"));
	assert_true(has_post(&e.plan, "qm set 101 --tpmstate0 local-lvm:1,version=v2.0"));
	check_hostpci_lines(ch->new_data);
	golden("proxmox-new-windows-turing.conf", ch->new_data, ch->new_len);
	golden("proxmox-new-windows-turing.commands", e.info.commands, strlen(e.info.commands));

	/* Applied, and Proxmox allocated the volumes: planning again changes
	 * nothing and finds the same VMID by its name. */
	apply_all(&e);
	{
		char *conf = vw_xasprintf("%s%s", ch->new_data,
					  "efidisk0: local-lvm:vm-101-disk-0,efitype=4m,pre-enrolled-keys=1,size=4M\n"
					  "scsi0: local-lvm:vm-101-disk-1,discard=on,iothread=1,size=64G\n"
					  "tpmstate0: local-lvm:vm-101-disk-2,size=4M,version=v2.0\n");

		tu_write(e.root, "etc/pve/nodes/pve1/qemu-server/101.conf", conf);
		free(conf);
	}
	plan_ok(&e, &c, &h);
	assert_int_equal(e.info.vmid, 101);
	assert_int_equal(e.plan.n, 0);
	assert_int_equal(e.plan.npost, 0);

	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

/* Windows 11 install media: the installer boots first, virtio-win beside
 * it; paths are checked under the sysroot; Proxmox takes storage volumes
 * and pins the machine to the host's QEMU. */
static void test_install_media(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;
	const char *d;

	(void)state;
	env_open(&e);
	fake_turing(&h);
	fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_WINDOWS, "win11");
	c.access.vnc = false;
	c.access.rdp = true;
	free(c.vm.install_iso);
	c.vm.install_iso = vw_xstrdup("/var/lib/libvirt/images/Win11_24H2_English_x64.iso");
	free(c.vm.virtio_iso);
	c.vm.virtio_iso = vw_xstrdup("/var/lib/libvirt/images/virtio-win.iso");
	/* Missing ISO: refused with its path. */
	vw_plan_done(&e.plan);
	vw_plan_init(&e.plan);
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -ENOENT);
	assert_non_null(strstr(e.err.msg, "Win11_24H2_English_x64.iso"));
	vw_vm_info_done(&e.info);
	tu_write(e.root, "var/lib/libvirt/images/Win11_24H2_English_x64.iso", "iso");
	tu_write(e.root, "var/lib/libvirt/images/virtio-win.iso", "iso");
	plan_ok(&e, &c, &h);
	ch = only_change(&e, "etc/vfiowiz/libvirt/win11.xml");
	d = ch->new_data;
	/* Windows 11: Secure Boot with keys, SMM, TPM 2.0 (swtpm). */
	assert_non_null(strstr(d, "<feature enabled=\"yes\" name=\"secure-boot\"/>"));
	assert_non_null(strstr(d, "<feature enabled=\"yes\" name=\"enrolled-keys\"/>"));
	assert_non_null(strstr(d, "<smm state=\"on\"/>"));
	assert_non_null(strstr(d, "<tpm model=\"tpm-crb\">"));
	assert_non_null(strstr(d, "<backend type=\"emulator\" version=\"2.0\"/>"));
	assert_non_null(strstr(d, "<synic state=\"on\"/>"));
	/* The installer first, then the disk; no <os><boot>. */
	assert_null(strstr(d, "<boot dev="));
	assert_non_null(strstr(d, "<source file=\"/var/lib/libvirt/images/Win11_24H2_English_x64.iso\"/>\n"
				  "      <target dev=\"sda\" bus=\"sata\"/>\n      <readonly/>\n      <boot order=\"1\"/>"));
	assert_non_null(strstr(d, "<target dev=\"vda\" bus=\"virtio\"/>\n      <boot order=\"2\"/>"));
	assert_non_null(strstr(d, "<source file=\"/var/lib/libvirt/images/virtio-win.iso\"/>\n"
				  "      <target dev=\"sdb\" bus=\"sata\"/>"));
	/* RDP only: a VNC display on 127.0.0.1 for Setup, no password. */
	assert_true(e.info.install_display);
	assert_non_null(strstr(d, "<graphics type=\"vnc\" port=\"-1\" autoport=\"yes\">"));
	assert_non_null(strstr(d, "address=\"127.0.0.1\""));
	assert_false(ch->secret);
	keep_domain("win11-install.xml", ch);
	golden("libvirt-win11-install.xml", ch->new_data, ch->new_len);

	/* Relative path: refused. */
	free(c.vm.virtio_iso);
	c.vm.virtio_iso = vw_xstrdup("virtio-win.iso");
	vw_plan_done(&e.plan);
	vw_plan_init(&e.plan);
	vw_vm_info_done(&e.info);
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EINVAL);
	vw_choices_done(&c);
	env_close(&e);

	/* Proxmox: volumes of the "local" storage, checked in its directory. */
	env_open(&e);
	pve_root(&e);
	tu_write(e.root, ".vfiowiz/cmd/kvm_--version",
		 "QEMU emulator version 8.1.5 (pve-qemu-kvm_8.1.5-3)\nCopyright (c) 2003-2023 Fabrice Bellard\n");
	fake_choices(&c, VW_VM_PROXMOX, VW_GUEST_WINDOWS, "win11");
	c.access.vnc = false;
	free(c.vm.install_iso);
	c.vm.install_iso = vw_xstrdup("local:iso/Win11_24H2_English_x64.iso");
	free(c.vm.virtio_iso);
	c.vm.virtio_iso = vw_xstrdup("/var/lib/vz/template/iso/virtio-win.iso");
	vw_plan_done(&e.plan);
	vw_plan_init(&e.plan);
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -ENOENT);
	vw_vm_info_done(&e.info);
	tu_write(e.root, "var/lib/vz/template/iso/Win11_24H2_English_x64.iso", "iso");
	tu_write(e.root, "var/lib/vz/template/iso/virtio-win.iso", "iso");
	plan_ok(&e, &c, &h);
	ch = only_change(&e, "etc/pve/qemu-server/100.conf");
	d = ch->new_data;
	assert_non_null(strstr(d, "boot: order=ide2;scsi0;net0\n"));
	assert_non_null(strstr(d, "ide2: local:iso/Win11_24H2_English_x64.iso,media=cdrom\n"));
	assert_non_null(strstr(d, "ide0: local:iso/virtio-win.iso,media=cdrom\n"));
	assert_non_null(strstr(d, "machine: pc-q35-8.1\n"));
	check_hostpci_lines(d);
	/* An ISO outside a storage: refused, with the way to fix it. */
	free(c.vm.virtio_iso);
	c.vm.virtio_iso = vw_xstrdup("/root/virtio-win.iso");
	vw_plan_done(&e.plan);
	vw_plan_init(&e.plan);
	vw_vm_info_done(&e.info);
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EINVAL);
	assert_non_null(strstr(e.err.msg, "local:iso/virtio-win.iso"));
	vw_choices_done(&c);
	env_close(&e);
	fake_done(&h);
}

static void test_pve_new_nvswitch_cluster(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;

	(void)state;
	env_open(&e);
	pve_root(&e);
	tu_write(e.root, "etc/pve/corosync.conf", "totem {}\n");
	fake_nvswitch(&h);
	fake_choices(&c, VW_VM_PROXMOX, VW_GUEST_LINUX, "hgx");
	c.vm.vmid = 900;
	c.access.vnc = false;
	c.vm.storage_type = VW_STORAGE_QCOW2;
	fake_set(&c.vm.storage_path, "/var/lib/vz/images/hgx.qcow2");
	tu_mkdir(e.root, "var/lib/vz/images");
	plan_ok(&e, &c, &h);
	ch = only_change(&e, "etc/pve/qemu-server/900.conf");
	assert_non_null(strstr(ch->new_data, "hostpci11: 0000:db:00,pcie=1\n"));
	/* 3D controllers: no x-vga, and the emulated VGA stays. */
	assert_null(strstr(ch->new_data, "x-vga"));
	assert_null(strstr(ch->new_data, "vga: none"));
	assert_non_null(strstr(ch->new_data, "scsi0: /var/lib/vz/images/hgx.qcow2,discard=on,iothread=1\n"));
	assert_true(has_post(&e.plan, "qemu-img create -f qcow2 /var/lib/vz/images/hgx.qcow2 64G"));
	check_hostpci_lines(ch->new_data);
	assert_non_null(strstr(e.info.commands, "pvesh create /cluster/mapping/pci --id vfiowiz-900-0"));
	assert_non_null(strstr(e.info.commands, "id=10de:22a3,iommugroup=40,node=pve1,path=0000:05:00,subsystem-id=10de:1234"));
	golden("proxmox-new-linux-nvswitch.conf", ch->new_data, ch->new_len);
	golden("proxmox-new-linux-nvswitch.commands", e.info.commands, strlen(e.info.commands));
	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

static const char pve_existing[] =
	"#Windows desktop\n"
	"#with notes\n"
	"agent: 1\n"
	"boot: order=sata0;ide2\n"
	"cores: 8\n"
	"cpu: x86-64-v2-AES,flags=+aes\n"
	"hostpci3: 0000:01:00.0\n"
	"hostpci5: 0000:02:00.0\n"
	"machine: pc-q35-8.1\n"
	"bios: ovmf\n"
	"memory: 16384\n"
	"name: desk\n"
	"sata0: local-lvm:vm-104-disk-0,size=200G\n"
	"vmgenid: 5b2a2b7e-3f0b-4a57-8f43-6a6a1b2c3d4e\n"
	"\n"
	"[PENDING]\n"
	"memory: 32768\n"
	"\n"
	"[before-gpu]\n"
	"cores: 8\n"
	"hostpci0: 0000:09:00\n"
	"machine: pc-q35-8.1\n"
	"snaptime: 1700000000\n";

static void test_pve_existing(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;
	const char *tail;

	(void)state;
	env_open(&e);
	pve_root(&e);
	tu_write(e.root, "etc/pve/nodes/pve1/qemu-server/104.conf", pve_existing);
	fake_turing(&h);
	fake_choices(&c, VW_VM_PROXMOX, VW_GUEST_WINDOWS, "desk");
	c.vm.existing = true;
	c.access.vnc = false;
	plan_ok(&e, &c, &h);
	assert_int_equal(e.info.vmid, 104);
	ch = only_change(&e, "etc/pve/qemu-server/104.conf");
	/* The entry that passed one function of the slot now passes them all,
	 * in the same place; someone else's hostpci5 stays. */
	assert_non_null(strstr(ch->new_data, "hostpci3: 0000:01:00,pcie=1,x-vga=1\n"));
	assert_non_null(strstr(ch->new_data, "hostpci5: 0000:02:00.0\n"));
	assert_non_null(strstr(ch->new_data, "cpu: x86-64-v2-AES,flags=+aes,hidden=1\n"));
	/* Snapshots and pending changes untouched, byte for byte. */
	tail = strstr(ch->new_data, "\n[PENDING]");
	assert_non_null(tail);
	assert_string_equal(tail, strstr(pve_existing, "\n[PENDING]"));
	assert_null(strstr(ch->new_data, "efidisk0"));
	assert_int_equal(e.plan.npost, 0);
	check_hostpci_lines(ch->new_data);
	golden("proxmox-existing.conf", ch->new_data, ch->new_len);
	golden("proxmox-existing.commands", e.info.commands, strlen(e.info.commands));

	/* Found by name when the VMID is not given. */
	apply_all(&e);
	plan_ok(&e, &c, &h);
	assert_int_equal(e.info.vmid, 104);
	assert_int_equal(e.plan.n, 0);

	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

/* Repeated and malformed hostpci lines (fuzz/findings/vmplan-not-idempotent).
 * Proxmox reads the lines in order, a later line of a key replacing an
 * earlier one: the slot's entries all go but one, lines that are not
 * "key: value" stay as written, and planning again changes nothing. */
static const char pve_messy[] =
	"#Windows desktop\n"
	"agent: 1\n"
	"cpu: x86-64-v2-AES,flags=+aes\n"
	"hostpci1: 0000:01:00.0\n"
	"hostpci3: 0000:01:00.1\n"
	"hostpci00:02:00.0\n"
	"#a note in the middle\n"
	"cpu: host\n"
	"hostpci3: 0000:01:00.2\n"
	"hostpci4:\t0000:01:00.3 \n"
	"hostpci0: 0000:09\f2001:db8:::00\n"
	"machine/: pc-q35-8.1\n"
	"machine: pc-q35-8.1\n"
	"bios: ovmf\n"
	"name: desk\n";

static void test_pve_existing_messy(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	const struct vw_change *ch;
	const char *p;
	size_t slot_lines = 0;

	(void)state;
	env_open(&e);
	pve_root(&e);
	tu_write(e.root, "etc/pve/nodes/pve1/qemu-server/104.conf", pve_messy);
	fake_turing(&h);
	fake_choices(&c, VW_VM_PROXMOX, VW_GUEST_WINDOWS, "desk");
	c.vm.existing = true;
	c.access.vnc = false;
	plan_ok(&e, &c, &h);
	ch = only_change(&e, "etc/pve/qemu-server/104.conf");
	assert_non_null(strstr(ch->new_data, "\nhostpci1: 0000:01:00,pcie=1,x-vga=1\n"));
	for (p = ch->new_data; (p = strstr(p, "0000:01:00")); p++)
		slot_lines++;
	assert_int_equal(slot_lines, 1);
	assert_null(strstr(ch->new_data, "hostpci3"));
	assert_null(strstr(ch->new_data, "hostpci4"));
	/* Someone else's entry, and what is not a "key: value" line, stay. */
	assert_non_null(strstr(ch->new_data, "\nhostpci0: 0000:09\f2001:db8:::00\n"));
	assert_non_null(strstr(ch->new_data, "\nhostpci00:02:00.0\n"));
	assert_non_null(strstr(ch->new_data, "\nmachine/: pc-q35-8.1\n"));
	assert_non_null(strstr(ch->new_data, "\n#a note in the middle\n"));
	/* The cpu line that counts is the last one: it is the one edited. */
	assert_non_null(strstr(ch->new_data, "\ncpu: host,hidden=1\n"));
	assert_null(strstr(ch->new_data, "flags=+aes"));

	apply_all(&e);
	plan_ok(&e, &c, &h);
	assert_int_equal(e.plan.n, 0);
	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

static void test_pve_refusals(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;

	(void)state;
	env_open(&e);
	pve_root(&e);
	tu_write(e.root, "etc/pve/nodes/pve1/qemu-server/104.conf", pve_existing);
	tu_write(e.root, "etc/pve/nodes/pve1/qemu-server/105.conf",
		 "machine: pc-i440fx-8.1\nname: legacy\nostype: l26\n");
	fake_amd(&h);
	fake_choices(&c, VW_VM_PROXMOX, VW_GUEST_LINUX, "desk");

	/* A new VM on a VMID someone else uses. */
	c.vm.vmid = 104;
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EEXIST);
	vw_vm_info_done(&e.info);
	/* A new image where a file exists: qemu-img would wipe it. */
	c.vm.vmid = 0;
	fake_set(&c.vm.name, "fresh");
	fake_set(&c.vm.storage_path, "/var/lib/vz/images/taken.qcow2");
	tu_write(e.root, "var/lib/vz/images/taken.qcow2", "data");
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EEXIST);
	vw_vm_info_done(&e.info);
	fake_set(&c.vm.storage_path, "");
	/* Names are DNS names on Proxmox. */
	fake_set(&c.vm.name, "bad_name");
	c.vm.vmid = 0;
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -EINVAL);
	vw_vm_info_done(&e.info);
	/* An existing VM that does not exist. */
	fake_set(&c.vm.name, "nothere");
	c.vm.existing = true;
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -ENOENT);
	vw_vm_info_done(&e.info);

	/* i440fx: no pcie=1, and a note says why. */
	fake_set(&c.vm.name, "legacy");
	c.access.vnc = false;
	plan_ok(&e, &c, &h);
	{
		const struct vw_change *ch = only_change(&e, "etc/pve/qemu-server/105.conf");

		assert_non_null(strstr(ch->new_data, "hostpci0: 0000:0c:00,x-vga=1\n"));
		assert_non_null(strstr(ch->new_data, "vga: none\n"));
		assert_true(e.info.nnotes >= 2);
	}
	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

static void test_pve_too_many(void **state)
{
	struct env e;
	struct fake_host h;
	struct vw_choices c;
	char addr[16];

	(void)state;
	env_open(&e);
	pve_root(&e);
	memset(&h, 0, sizeof(h));
	for (unsigned i = 0; i < VW_PVE_MAX_HOSTPCI + 1; i++) {
		snprintf(addr, sizeof(addr), "0000:%02x:00.0", 0x10 + i);
		fake_dev(&h, addr, 0x10de, 0x2330, 0x030200, (int)i, true);
	}
	fake_choices(&c, VW_VM_PROXMOX, VW_GUEST_LINUX, "big");
	assert_int_equal(vw_vmplan_build(&e.plan, e.sr, &h.f, &c, &h.u, &e.info, &e.err), -ENOSPC);
	fake_done(&h);
	vw_choices_done(&c);
	env_close(&e);
}

/* The fixture hosts, when built: every display device's unit planned for
 * both targets, the libvirt domains kept for validation. */
static void test_fixture_hosts(void **state)
{
	static const char *const hosts[] = { "turing-4fn", "amd-desktop", "nvswitch-8gpu",
					     "proxmox-systemd-boot", "h200x2-nvlink-host",
					     "hgx-h100-bars", "a100-80gb-pve" };
	size_t planned = 0;

	(void)state;
	for (size_t k = 0; k < VW_ARRAY_SIZE(hosts); k++) {
		char *dir = tu_host(hosts[k]);
		struct vw_sysroot *hsr = NULL;
		struct vw_facts f;
		struct vw_err err = { 0 };
		int gpu = -1;

		if (!dir)
			continue;
		assert_int_equal(vw_sysroot_open(&hsr, dir, &err), 0);
		assert_int_equal(vw_facts_probe(&f, hsr, &err), 0);
		for (size_t i = 0; i < f.ndevs && gpu < 0; i++)
			if (vw_dev_is_display(&f.devs[i]) && f.devs[i].boot_vga != 1)
				gpu = (int)i;
		if (gpu >= 0) {
			struct vw_unit u;
			struct env e;
			struct vw_choices c;
			char *name = vw_xasprintf("fixture-%s.xml", hosts[k]);

			vw_unit_build_idx(&u, &f, &gpu, 1);
			env_open(&e);
			pve_root(&e);
			fake_choices(&c, VW_VM_LIBVIRT, VW_GUEST_WINDOWS, "fixture");
			if (vw_vmplan_build(&e.plan, e.sr, &f, &c, &u, &e.info, &e.err) != 0)
				fail_msg("%s: %s", hosts[k], e.err.msg);
			keep_domain(name, only_change(&e, "etc/vfiowiz/libvirt/fixture.xml"));
			vw_vm_info_done(&e.info);
			c.vm.target = VW_VM_PROXMOX;
			if (vw_vmplan_build(&e.plan, e.sr, &f, &c, &u, &e.info, &e.err) != 0)
				fail_msg("%s: %s", hosts[k], e.err.msg);
			check_hostpci_lines(only_change(&e, "etc/pve/qemu-server/100.conf")->new_data);
			planned++;
			free(name);
			vw_choices_done(&c);
			env_close(&e);
			vw_unit_done(&u);
		}
		vw_facts_done(&f);
		vw_sysroot_free(hsr);
		free(dir);
	}
	if (!planned)
		print_message("fixture hosts not built: skipped\n");
}

/* BARs as the probe reads them from fixture hosts (resource, resize, dmesg)
 * and the findings they make. */
static void test_fixture_bars(void **state)
{
	char *dir = tu_host("desktop-4g-off"), *dir2 = tu_host("h200x2-nvlink-host");
	struct vw_sysroot *hsr = NULL;
	struct vw_findings fs;
	struct vw_facts f;
	struct vw_err err = { 0 };
	const struct vw_pci_dev *d;
	int i;

	(void)state;
	if (!dir || !dir2) {
		print_message("fixture hosts not built: skipped\n");
		free(dir);
		free(dir2);
		return;
	}
	assert_int_equal(vw_sysroot_open(&hsr, dir, &err), 0);
	assert_int_equal(vw_facts_probe(&f, hsr, &err), 0);
	assert_true((i = vw_facts_find_dev(&f, "0000:09:00.0")) >= 0);
	d = &f.devs[i];
	assert_true(d->bars[0].size == 16u << 20 && !vw_bar_is64(&d->bars[0]));
	assert_true(d->bars[1].start == 0xd0000000 && d->bars[1].size == 256u << 20 && vw_bar_is64(&d->bars[1]));
	assert_true(vw_bar_resize_max(&d->bars[1]) == 32ull << 30);
	assert_true(d->bars[3].log_failed && vw_bar_unassigned(&d->bars[3]));
	assert_false(d->bars[1].log_failed || vw_bar_unassigned(&d->bars[1]));
	vw_findings_eval(&f, &fs);
	assert_non_null(vw_findings_get(&fs, "above-4g-off"));
	assert_non_null(strstr(vw_findings_get(&fs, "above-4g-off")->msg, "BAR 1 (256 MiB, 64-bit) sits below 4 GiB"));
	assert_non_null(vw_findings_get(&fs, "rebar-off"));
	assert_null(vw_findings_get(&fs, "rebar-on"));
	vw_findings_done(&fs);
	vw_facts_done(&f);
	vw_sysroot_free(hsr);

	/* The H200 host: 256 GiB BAR 2 above 4 GiB, nothing to say. */
	assert_int_equal(vw_sysroot_open(&hsr, dir2, &err), 0);
	assert_int_equal(vw_facts_probe(&f, hsr, &err), 0);
	assert_true((i = vw_facts_find_dev(&f, "0000:16:00.0")) >= 0);
	assert_true(f.devs[i].bars[2].size == 256ull << 30 && f.devs[i].bars[2].start >= 4ull << 30);
	assert_true(vw_bars_sum64(&f, &i, 1) == (256ull << 30) + (32u << 20));
	vw_findings_eval(&f, &fs);
	assert_null(vw_findings_get(&fs, "above-4g-off"));
	assert_null(vw_findings_get(&fs, "rebar-off"));
	vw_findings_done(&fs);
	vw_facts_done(&f);
	vw_sysroot_free(hsr);
	free(dir);
	free(dir2);
}

/* A VM's memory is pinned: the host keeps an eighth of its memory, 2 to
 * 8 GiB; the fixture with a /proc/meminfo (32,034 MiB) reads it, and a
 * snapshot of it would carry it. */
static void test_memory_max(void **state)
{
	struct vw_facts f = { 0 };
	struct vw_err err = { 0 };
	struct tu_fixture h;

	(void)state;
	assert_int_equal(vw_vm_memory_max(&f), 0);	/* unknown: no limit */
	assert_int_equal(vw_vm_memory_check(&f, 1L << 30, &err), 0);
	f.ram_mib = 8192;
	assert_int_equal(vw_vm_memory_max(&f), 6144);
	f.ram_mib = 16384;
	assert_int_equal(vw_vm_memory_max(&f), 14336);
	f.ram_mib = 2048;	/* a test VM (tests/e2e's L1) keeps a quarter */
	assert_int_equal(vw_vm_memory_max(&f), 1536);
	assert_int_equal(vw_vm_memory_check(&f, 1537, &err), -EINVAL);
	f.ram_mib = 457;	/* tests/vm's L1 */
	assert_int_equal(vw_vm_memory_max(&f), 343);
	f.ram_mib = 1048576;
	assert_int_equal(vw_vm_memory_max(&f), 1048576 - 8192);
	if (!tu_fixture_open(&h, "amd-desktop"))
		skip();
	assert_int_equal(h.f.ram_mib, 32034);
	assert_int_equal(vw_vm_memory_max(&h.f), 32034 - 4004);
	assert_int_equal(vw_vm_memory_check(&h.f, 28030, &err), 0);
	assert_int_equal(vw_vm_memory_check(&h.f, 28031, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "at most 28030 MiB"));
	assert_int_equal(vw_vm_memory_check(&h.f, 32034, &err), -EINVAL);
	tu_fixture_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_template_expand),
		cmocka_unit_test(test_template_dir),
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_code43_rule),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_targets_by_name),
		cmocka_unit_test(test_libvirt_new_windows),
		cmocka_unit_test(test_libvirt_new_linux_novnc),
		cmocka_unit_test(test_libvirt_new_nvswitch),
		cmocka_unit_test(test_libvirt_existing),
		cmocka_unit_test(test_looking_glass),
		cmocka_unit_test(test_libvirt_existing_pc),
		cmocka_unit_test(test_libvirt_existing_recorded),
		cmocka_unit_test(test_large_bars),
		cmocka_unit_test(test_libvirt_refusals),
		cmocka_unit_test(test_libvirt_bad_text),
		cmocka_unit_test(test_libvirt_hostile),
		cmocka_unit_test(test_pve_next_vmid),
		cmocka_unit_test(test_pve_hostpci_syntax),
		cmocka_unit_test(test_pve_new_windows),
		cmocka_unit_test(test_install_media),
		cmocka_unit_test(test_pve_new_nvswitch_cluster),
		cmocka_unit_test(test_pve_existing),
		cmocka_unit_test(test_pve_existing_messy),
		cmocka_unit_test(test_pve_refusals),
		cmocka_unit_test(test_pve_too_many),
		cmocka_unit_test(test_fixture_hosts),
		cmocka_unit_test(test_fixture_bars),
		cmocka_unit_test(test_memory_max),
	};

	/* The templates of this source tree, not an installed copy. */
	if (getenv("top_srcdir")) {
		char *t = vw_xasprintf("%s/templates", getenv("top_srcdir"));

		setenv("VFIOWIZ_TEMPLATES", t, 1);
		free(t);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
