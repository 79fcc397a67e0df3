/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-hostplan.c - the host plan: back ends' detect(), the augeas and
 * shell-value helpers, binding decisions and lockout protection, and plans
 * built from facts made in memory over scratch roots (one back end at a
 * time), applied and planned again. */
#include "testutil.h"
#include "augedit.h"
#include "bind.h"
#include "plan.h"
#include "hostplan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- facts in memory ---------------------------------------------------------- */

static void facts_init(struct vw_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->root = vw_xstrdup("");
	f->cpu.vendor = VW_CPU_INTEL;
	f->cpu.vendor_id = vw_xstrdup("GenuineIntel");
	f->cpu.model = vw_xstrdup("");
	f->cpu.hypervisor_name = vw_xstrdup("");
	f->cpu.dmi_vendor = vw_xstrdup("");
	f->cpu.dmi_product = vw_xstrdup("");
	f->container.kind = vw_xstrdup("");
	f->container.evidence = vw_xstrdup("");
	f->fw.efi = true;
	f->fw.dmar = true;
	f->kernel.release = vw_xstrdup("6.5.0-test");
	f->kernel.major = 6;
	f->kernel.minor = 5;
	f->kernel.version_line = vw_xstrdup("");
	f->kernel.cmdline = vw_xstrdup("BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet");
	f->kernel.config_source = vw_xstrdup("");
	f->kernel.acs_override_evidence = vw_xstrdup("");
	f->kernel.intel_default_on = VW_YES;
	f->kernel.intel_default_intgpu_off = VW_NO;
	f->iommu.irq_remap = VW_YES;
	f->iommu.irq_remap_evidence = vw_xstrdup("");
	f->iommu.ngroups = 10;
	f->distro.id = vw_xstrdup("arch");
	f->distro.id_like = vw_xstrdup("");
	f->distro.version_id = vw_xstrdup("");
	f->distro.pretty_name = vw_xstrdup("");
	f->distro.bootloader_evidence = vw_xstrdup("");
	f->distro.initramfs_evidence = vw_xstrdup("");
}

static struct vw_pci_dev *add_dev(struct vw_facts *f, const char *addr, unsigned vendor, unsigned device,
				  unsigned cls, const char *driver, int boot_vga)
{
	struct vw_pci_dev *d;

	f->devs = vw_xreallocarray(f->devs, f->ndevs + 1, sizeof(*f->devs));
	d = &f->devs[f->ndevs++];
	memset(d, 0, sizeof(*d));
	snprintf(d->addr, sizeof(d->addr), "%s", addr);
	sscanf(addr, "%x:%x:%x.%x", &d->domain, &d->bus, &d->dev, &d->func);
	d->vendor = vendor;
	d->device = device;
	d->class_code = cls;
	d->vendor_name = vw_xstrdup("");
	d->device_name = vw_xstrdup("");
	d->driver = vw_xstrdup(driver);
	d->reset_method = vw_xstrdup("");
	d->note = vw_xstrdup("");
	d->group = -1;
	d->parent = -1;
	d->boot_vga = boot_vga;
	d->role = (cls >> 8) == 0x0300 || (cls >> 8) == 0x0302 ? VW_ROLE_GPU : VW_ROLE_OTHER;
	d->pcie_type = VW_PCIE_ENDPOINT;
	return d;
}

/* An Intel host with its iGPU as the boot display and a GeForce card. */
static void desktop(struct vw_facts *f)
{
	facts_init(f);
	add_dev(f, "0000:00:02.0", 0x8086, 0x3e98, 0x030000, "i915", 1);
	add_dev(f, "0000:01:00.0", 0x10de, 0x2204, 0x030000, "nvidia", 0);
	add_dev(f, "0000:01:00.1", 0x10de, 0x1aef, 0x040300, "snd_hda_intel", -1);
}

static struct vw_sysroot *open_root(const char *root)
{
	struct vw_sysroot *sr = NULL;
	struct vw_err err = { 0 };

	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	return sr;
}

static void choices(struct vw_choices *c, const char *text)
{
	struct vw_err err = { 0 };

	if (vw_answers_parse(c, text, strlen(text), "t.conf", &err) < 0)
		fail_msg("answers: %s", err.msg);
}

/* Write every change of the plan to the root (what apply would write). */
static void write_plan(const char *root, const struct vw_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		char *path = vw_xasprintf("%s/%s", root, p->v[i].path);

		if (p->v[i].remove)
			assert_int_equal(remove(path), 0);
		else
			tu_write_bytes(root, p->v[i].path, p->v[i].new_data, p->v[i].new_len);
		free(path);
	}
}

static const struct vw_change *find(const struct vw_plan *p, const char *path)
{
	const struct vw_change *c = vw_plan_find(p, path);

	if (!c)
		fail_msg("no change of %s in the plan", path);
	return c;
}

/* Build, check that building again after writing it plans nothing. */
static int build(struct vw_plan *p, struct vw_hostplan *hp, const struct vw_facts *f, const char *root,
		 const struct vw_choices *c, struct vw_err *err)
{
	struct vw_sysroot *sr = open_root(root);
	int r;

	vw_plan_init(p);
	r = vw_hostplan_build(p, hp, f, sr, c, NULL, 0, err);
	vw_sysroot_free(sr);
	return r;
}

static void build_ok_idempotent(struct vw_plan *p, struct vw_hostplan *hp, const struct vw_facts *f,
				const char *root, const struct vw_choices *c)
{
	struct vw_plan again;
	struct vw_hostplan hp2;
	struct vw_err err = { 0 };

	if (build(p, hp, f, root, c, &err) < 0)
		fail_msg("plan: %s", err.msg);
	/* A second root with the plan written: nothing more to do. */
	{
		char *copy = tu_mkroot(), *cmd = vw_xasprintf("cp -a %s/. %s/", root, copy);

		assert_int_equal(system(cmd), 0);
		write_plan(copy, p);
		if (build(&again, &hp2, f, copy, c, &err) < 0)
			fail_msg("second plan: %s", err.msg);
		for (size_t i = 0; i < again.n; i++)
			fprintf(stderr, "second plan changes %s\n", again.v[i].path);
		assert_int_equal(again.n, 0);
		vw_plan_done(&again);
		vw_hostplan_done(&hp2);
		tu_rmtree(copy);
		free(copy);
		free(cmd);
	}
}

/* ---- detect() --------------------------------------------------------------------- */

static void test_detect_boot(void **state)
{
	static const struct {
		const struct vw_boot_ops *ops;
		const char *evidence[3];
	} cases[] = {
		{ &vw_boot_grub, { "etc/default/grub", NULL } },
		{ &vw_boot_systemd_boot, { "boot/loader/entries/a.conf", NULL } },
		{ &vw_boot_kernel_install, { "etc/kernel/cmdline", "efi/loader/entries/a.conf", NULL } },
		{ &vw_boot_proxmox, { "etc/kernel/proxmox-boot-uuids", NULL } },
		{ &vw_boot_kernelstub, { "etc/kernelstub/configuration", NULL } },
		{ &vw_boot_grubby, { "usr/sbin/grubby", "boot/loader/entries/x.conf", NULL } },
	};
	struct vw_facts f;

	(void)state;
	facts_init(&f);
	f.fw.efi = false;
	for (size_t i = 0; i < VW_ARRAY_SIZE(cases); i++) {
		char *root = tu_mkroot();
		struct vw_sysroot *sr = open_root(root);

		assert_false(cases[i].ops->detect(&f, sr));
		for (size_t k = 0; cases[i].evidence[k]; k++)
			tu_write(root, cases[i].evidence[k], "x\n");
		if (!cases[i].ops->detect(&f, sr))
			fail_msg("%s: detect() says no", cases[i].ops->name);
		/* Found by name, too. */
		assert_ptr_equal(vw_boot_find(cases[i].ops->id), cases[i].ops);
		vw_sysroot_free(sr);
		tu_rmtree(root);
		free(root);
	}
	/* systemd-boot by its EFI variable, even next to a GRUB config. */
	{
		char *root = tu_mkroot();
		struct vw_sysroot *sr = open_root(root);

		tu_write(root, "etc/default/grub", "x\n");
		tu_write(root, "boot/loader/entries/a.conf", "x\n");
		assert_false(vw_boot_systemd_boot.detect(&f, sr));
		tu_write(root, "sys/firmware/efi/efivars/LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f", "x");
		f.fw.efi = true;
		assert_true(vw_boot_systemd_boot.detect(&f, sr));
		/* The plan takes what the facts detected, through the same chain. */
		f.distro.bootloader = VW_BL_GRUB;
		assert_ptr_equal(vw_boot_detect(&f, sr), &vw_boot_grub);
		f.distro.bootloader = VW_BL_UNKNOWN;
		assert_null(vw_boot_detect(&f, sr));
		vw_sysroot_free(sr);
		tu_rmtree(root);
		free(root);
	}
	vw_facts_done(&f);
}

/* check (facts) and the plan name the same boot loader and initramfs tool
 * on every evidence set, among them one where they used to disagree:
 * etc/kernel/cmdline and kernel-install, no boot entries yet and no GRUB. */
static void test_detect_one_chain(void **state)
{
	static const struct {
		const char *files[4];
		enum vw_bootloader bl;
		enum vw_initramfs irfs;
		const char *evidence;
	} cases[] = {
		{ { "etc/kernel/cmdline", "usr/bin/kernel-install", "usr/bin/dracut", NULL },
		  VW_BL_KERNEL_INSTALL, VW_IRFS_DRACUT, "/usr/bin/kernel-install" },
		{ { "etc/kernel/cmdline", "usr/bin/kernel-install", "etc/default/grub", NULL },
		  VW_BL_GRUB, VW_IRFS_UNKNOWN, "/etc/default/grub" },
		{ { "etc/kernel/cmdline", "boot/loader/entries/a.conf", "etc/mkinitcpio.conf", NULL },
		  VW_BL_KERNEL_INSTALL, VW_IRFS_MKINITCPIO, "/boot/loader/entries" },
		{ { "etc/kernel/proxmox-boot-uuids", "etc/kernel/cmdline", "usr/sbin/mkinitramfs", NULL },
		  VW_BL_PROXMOX, VW_IRFS_INITRAMFS_TOOLS, "/etc/kernel/proxmox-boot-uuids" },
		{ { "etc/os-release", NULL }, VW_BL_UNKNOWN, VW_IRFS_UNKNOWN, "" },
	};

	(void)state;
	for (size_t i = 0; i < VW_ARRAY_SIZE(cases); i++) {
		char *root = tu_mkroot();
		struct vw_sysroot *sr = open_root(root);
		const struct vw_boot_ops *b;
		const struct vw_irfs_ops *t;
		struct vw_facts f;

		for (size_t k = 0; cases[i].files[k]; k++)
			tu_write(root, cases[i].files[k], "x\n");
		facts_init(&f);
		/* The probe fills the distribution strings afresh. */
		free(f.distro.id), free(f.distro.id_like), free(f.distro.version_id);
		free(f.distro.pretty_name), free(f.distro.bootloader_evidence);
		free(f.distro.initramfs_evidence);
		vw_probe_distro(&f, sr);
		if (f.distro.bootloader != cases[i].bl || f.distro.initramfs != cases[i].irfs)
			fail_msg("case %zu: facts say %s/%s", i, vw_bootloader_name(f.distro.bootloader),
				 vw_initramfs_name(f.distro.initramfs));
		assert_string_equal(f.distro.bootloader_evidence, cases[i].evidence);
		b = vw_boot_detect(&f, sr);
		t = vw_irfs_detect(&f, sr);
		assert_int_equal(b ? b->id : VW_BL_UNKNOWN, cases[i].bl);
		assert_int_equal(t ? t->id : VW_IRFS_UNKNOWN, cases[i].irfs);
		/* Stable names and answers words round-trip through the table. */
		if (b)
			assert_string_equal(b->name, vw_bootloader_name(b->id));
		if (t)
			assert_string_equal(t->name, vw_initramfs_name(t->id));
		vw_facts_done(&f);
		vw_sysroot_free(sr);
		tu_rmtree(root);
		free(root);
	}
}

static void test_detect_irfs(void **state)
{
	static const struct {
		const struct vw_irfs_ops *ops;
		const char *evidence;
	} cases[] = {
		{ &vw_irfs_initramfs_tools, "etc/initramfs-tools/initramfs.conf" },
		{ &vw_irfs_initramfs_tools, "usr/sbin/mkinitramfs" },
		{ &vw_irfs_dracut, "etc/dracut.conf" },
		{ &vw_irfs_dracut, "usr/bin/dracut" },
		{ &vw_irfs_mkinitcpio, "etc/mkinitcpio.conf" },
		{ &vw_irfs_booster, "etc/booster.yaml" },
	};
	struct vw_facts f;

	(void)state;
	facts_init(&f);
	for (size_t i = 0; i < VW_ARRAY_SIZE(cases); i++) {
		char *root = tu_mkroot();
		struct vw_sysroot *sr = open_root(root);

		assert_null(cases[i].ops->detect(&f, sr));
		tu_write(root, cases[i].evidence, "x\n");
		assert_string_equal(cases[i].ops->detect(&f, sr), cases[i].evidence);
		/* The plan follows the facts' detection. */
		f.distro.initramfs = cases[i].ops->id;
		assert_ptr_equal(vw_irfs_detect(&f, sr), cases[i].ops);
		f.distro.initramfs = VW_IRFS_UNKNOWN;
		assert_null(vw_irfs_detect(&f, sr));
		assert_non_null(cases[i].ops->rebuild);
		vw_sysroot_free(sr);
		tu_rmtree(root);
		free(root);
	}
	vw_facts_done(&f);
}

/* ---- shell values and augeas ---------------------------------------------------------- */

static const char *lk(const char *name, void *arg)
{
	(void)arg;
	return !strcmp(name, "A") ? "quiet splash" : NULL;
}

static void test_shell_values(void **state)
{
	enum vw_shq q;
	char *s;

	(void)state;
	assert_true(vw_sh_unquote("'quiet splash'", &q, &s));
	assert_int_equal(q, VW_SHQ_SINGLE);
	assert_string_equal(s, "quiet splash");
	free(s);
	assert_true(vw_sh_unquote("\"$X a=\\\"b\\\"\"", &q, &s));
	assert_int_equal(q, VW_SHQ_DOUBLE);
	assert_string_equal(s, "$X a=\\\"b\\\"");
	free(s);
	assert_true(vw_sh_unquote("quiet", &q, &s));
	assert_int_equal(q, VW_SHQ_NONE);
	free(s);
	assert_false(vw_sh_unquote("\"a\"'b'", &q, &s));
	assert_false(vw_sh_unquote("`x`", &q, &s));
	assert_false(vw_sh_unquote("\"a\\\"", &q, &s));

	s = vw_sh_quote("a b", VW_SHQ_NONE);
	assert_string_equal(s, "\"a b\"");
	free(s);
	s = vw_sh_quote("ab", VW_SHQ_SINGLE);
	assert_string_equal(s, "'ab'");
	free(s);

	s = vw_sh_expand("\"$A ${A} iommu=pt\"'$A'", lk, NULL);
	assert_string_equal(s, "quiet splash quiet splash iommu=pt$A");
	free(s);
	assert_null(vw_sh_expand("\"$(reboot)\"", lk, NULL));
	assert_null(vw_sh_expand("`lsb_release -i -s`", lk, NULL));
	assert_null(vw_sh_expand("\"${A:-x}\"", lk, NULL));
	assert_null(vw_sh_expand("\"unterminated", lk, NULL));
}

static void test_augeas(void **state)
{
	char *root = tu_mkroot(), *text = NULL;
	struct vw_sysroot *sr = open_root(root);
	struct vw_aug *a;
	struct vw_err err = { 0 };
	int doc;

	(void)state;
	assert_int_equal(vw_aug_new(&a, sr, &err), 0);
	doc = vw_aug_load(a, "Modprobe.lns", "# c\noptions vfio-pci ids=1:2\n", "/etc/modprobe.d/x.conf", &err);
	assert_true(doc >= 0);
	assert_int_equal(vw_aug_count(a, "%s/options[. = 'vfio-pci']/ids", vw_aug_tree(a, doc)), 1);
	text = vw_aug_get(a, "%s/options/ids", vw_aug_tree(a, doc));
	assert_string_equal(text, "1:2");
	free(text);
	aug_set(vw_aug_handle(a), "/vw/0/tree/options/ids", "1:2,3:4");
	assert_int_equal(vw_aug_text(a, doc, &text, &err), 0);
	/* The comment and the layout stay. */
	assert_string_equal(text, "# c\noptions vfio-pci ids=1:2,3:4\n");
	free(text);
	/* Errors name the file and the line. */
	assert_int_equal(vw_aug_load(a, "Modprobe.lns", "options x y=1\nnonsense here\n", "/etc/modprobe.d/bad.conf",
				     &err), -EINVAL);
	assert_true(vw_startswith(err.msg, "/etc/modprobe.d/bad.conf:2: cannot be read with the Modprobe.lns lens"));
	vw_aug_free(a);
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
}

/* ---- binding -------------------------------------------------------------------------- */

static void test_bind_ids(void **state)
{
	struct vw_facts f;
	char *clash, *ids;
	int one[] = { 1, 2 };

	(void)state;
	desktop(&f);
	ids = vw_bind_ids(&f, one, 2, &clash);
	assert_string_equal(ids, "10de:2204,10de:1aef");
	assert_null(clash);
	free(ids);
	/* An identical card: ids would take it too. */
	add_dev(&f, "0000:02:00.0", 0x10de, 0x2204, 0x030000, "nvidia", 0);
	ids = vw_bind_ids(&f, one, 2, &clash);
	assert_null(ids);
	assert_string_equal(clash, "0000:02:00.0 has the same ids 10de:2204 as 0000:01:00.0, and ids= would take it too");
	free(clash);
	/* ... unless the subsystem ids tell them apart. */
	f.devs[1].has_subsys = f.devs[3].has_subsys = true;
	f.devs[1].subvendor = 0x1458, f.devs[1].subdevice = 0x403b;
	f.devs[3].subvendor = 0x1043, f.devs[3].subdevice = 0x87b3;
	ids = vw_bind_ids(&f, one, 2, &clash);
	assert_string_equal(ids, "10de:2204:1458:403b,10de:1aef");
	free(ids);
	vw_facts_done(&f);
}

static void test_lockout(void **state)
{
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_err err = { 0 };
	int igpu[] = { 0 }, card[] = { 1, 2 }, both[] = { 0, 1, 2 };

	(void)state;
	desktop(&f);
	choices(&c, "devices = {\"0000:00:02.0\"}\n");
	assert_int_equal(vw_bind_check_lockout(&f, &c, igpu, 1, &err), -EPERM);
	assert_true(vw_startswith(err.msg, "t.conf:1: 0000:00:02.0 (unknown device) is the display the firmware boots on"));
	assert_int_equal(vw_bind_check_lockout(&f, &c, card, 2, &err), 0);
	/* Not the boot display, but the last one the host would keep. */
	f.devs[0].boot_vga = 0;
	assert_int_equal(vw_bind_check_lockout(&f, &c, both, 3, &err), -EPERM);
	assert_non_null(strstr(err.msg, "is the only display device of this host"));
	choices(&c, "devices = {\"0000:00:02.0\"}\nallow_host_display = true\n");
	/* The opt-in counts on SSH: at the console of a host without an SSH
	 * server, refused all the same; over SSH, or with sshd, allowed. */
	assert_int_equal(vw_bind_check_lockout(&f, &c, both, 3, &err), -EPERM);
	assert_non_null(strstr(err.msg, "this host has no SSH server"));
	f.over_ssh = true;
	assert_int_equal(vw_bind_check_lockout(&f, &c, both, 3, &err), 0);
	f.over_ssh = false;
	f.distro.ssh_server = true;
	assert_int_equal(vw_bind_check_lockout(&f, &c, both, 3, &err), 0);
	/* Single-GPU (dynamic): the host has its screen back when the VM stops. */
	f.distro.ssh_server = false;
	choices(&c, "devices = {\"0000:00:02.0\"}\ngpu_mode = dynamic\n");
	assert_int_equal(vw_bind_check_lockout(&f, &c, both, 3, &err), 0);
	/* Bridges stay with the host, always. */
	add_dev(&f, "0000:00:01.0", 0x8086, 0x1901, 0x060400, "pcieport", -1);
	{
		int br[] = { 3 };
		assert_int_equal(vw_bind_check_lockout(&f, &c, br, 1, &err), -EPERM);
		assert_non_null(strstr(err.msg, "is a PCI bridge"));
	}
	vw_choices_done(&c);
	vw_facts_done(&f);
}

static void test_host_modules(void **state)
{
	char *root = tu_mkroot();
	struct vw_sysroot *sr = open_root(root);
	struct vw_facts f;
	char **m;

	(void)state;
	facts_init(&f);
	add_dev(&f, "0000:01:00.2", 0x10de, 0x1ad6, 0x0c0330, "xhci_hcd", -1);
	add_dev(&f, "0000:01:00.3", 0x10de, 0x1ad7, 0x0c8000, "nvidia-gpu", -1);
	add_dev(&f, "0000:01:00.0", 0x1002, 0x73df, 0x030000, "amdgpu", 0);
	m = vw_bind_host_modules(&f, sr, &f.devs[0]);
	assert_string_equal(m[0], "xhci_pci");
	assert_null(m[1]);
	vw_strv_free(m);
	m = vw_bind_host_modules(&f, sr, &f.devs[1]);
	assert_string_equal(m[0], "i2c_nvidia_gpu");
	assert_string_equal(m[1], "ucsi_ccg");
	assert_null(m[2]);
	vw_strv_free(m);
	/* The driver's module link names the module. */
	tu_symlink(root, "sys/bus/pci/drivers/amdgpu/module", "../../../../module/amdgpu_custom");
	m = vw_bind_host_modules(&f, sr, &f.devs[2]);
	assert_string_equal(m[0], "amdgpu_custom");
	assert_string_equal(m[1], "amdgpu");
	assert_string_equal(m[2], "radeon");
	vw_strv_free(m);
	/* Never vfio-pci itself. */
	free(f.devs[2].driver);
	f.devs[2].driver = vw_xstrdup("vfio-pci");
	m = vw_bind_host_modules(&f, sr, &f.devs[2]);
	assert_string_equal(m[0], "amdgpu");
	vw_strv_free(m);
	vw_facts_done(&f);
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
}

/* ---- plans over scratch roots ------------------------------------------------------------ */

static void test_plan_grub_main(void **state)
{
	char *root = tu_mkroot();
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_plan p;
	struct vw_hostplan hp;
	const struct vw_change *ch;

	(void)state;
	desktop(&f);
	f.distro.bootloader = VW_BL_GRUB;
	f.kernel.intel_default_on = VW_NO;	/* needs intel_iommu=on */
	tu_write(root, "etc/default/grub",
		 "# Arch\nGRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"loglevel=3 quiet intel_iommu=off\"\n"
		 "GRUB_CMDLINE_LINUX='vfio-pci.ids=1002:67df'\n");
	choices(&c, "devices = {\"0000:01:00\"}\nbinding = cmdline\n");
	build_ok_idempotent(&p, &hp, &f, root, &c);
	ch = find(&p, "etc/default/grub");
	/* off removed where it was, on added; ids merged where they were. */
	assert_string_equal(ch->new_data,
			    "# Arch\nGRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"loglevel=3 quiet intel_iommu=on iommu=pt\"\n"
			    "GRUB_CMDLINE_LINUX='vfio-pci.ids=1002:67df,10de:2204,10de:1aef'\n");
	assert_string_equal(ch->post[0], "grub-mkconfig -o /boot/grub/grub.cfg");
	assert_null(vw_plan_find(&p, VW_GRUB_DROPIN));
	assert_ptr_equal(hp.boot, &vw_boot_grub);
	assert_null(hp.irfs);
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	vw_choices_done(&c);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

static void test_plan_grub_dropin(void **state)
{
	char *root = tu_mkroot();
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_plan p;
	struct vw_hostplan hp;

	(void)state;
	desktop(&f);
	f.distro.bootloader = VW_BL_GRUB;
	f.distro.grub_d = true;
	tu_write(root, "etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet iommu=pt\"\n");
	/* A later drop-in overrides the default line: ours must come last. */
	tu_write(root, "etc/default/grub.d/50-cloudimg-settings.cfg", "GRUB_CMDLINE_LINUX_DEFAULT=\"console=tty1\"\n");
	choices(&c, "devices = {\"0000:01:00\"}\n");
	build_ok_idempotent(&p, &hp, &f, root, &c);
	assert_string_equal(find(&p, VW_GRUB_DROPIN)->new_data,
			    "# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.\n"
			    "# grub-mkconfig reads this after /etc/default/grub and the other grub.d files.\n"
			    "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT iommu=pt\"\n");
	assert_null(vw_plan_find(&p, "etc/default/grub"));
	{
		bool noted = false;

		for (size_t i = 0; i < hp.nnotes; i++)
			noted = noted || strstr(hp.notes[i], "boot with: console=tty1 iommu=pt");
		assert_true(noted);
	}
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	vw_choices_done(&c);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

static void test_plan_systemd_boot(void **state)
{
	char *root = tu_mkroot();
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_plan p;
	struct vw_hostplan hp;

	(void)state;
	desktop(&f);
	f.distro.bootloader = VW_BL_SYSTEMD_BOOT;
	tu_write(root, "efi/loader/loader.conf", "default  lts*\ntimeout 3\n");
	tu_write(root, "efi/loader/entries/arch.conf", "title Arch\nlinux /vmlinuz-linux\noptions root=/dev/sda2 rw\n");
	tu_write(root, "efi/loader/entries/lts.conf",
		 "title LTS\nlinux /vmlinuz-linux-lts\noptions root=/dev/sda2\noptions intel_iommu=off rw\n");
	tu_write(root, "efi/loader/entries/windows.conf", "title Windows\nefi /EFI/Microsoft/Boot/bootmgfw.efi\n");
	choices(&c, "devices = {\"0000:01:00\"}\n");
	build_ok_idempotent(&p, &hp, &f, root, &c);
	assert_string_equal(find(&p, "efi/loader/entries/arch.conf")->new_data,
			    "title Arch\nlinux /vmlinuz-linux\noptions root=/dev/sda2 rw iommu=pt\n");
	/* Several options lines: removal in each, additions to the last. */
	assert_string_equal(find(&p, "efi/loader/entries/lts.conf")->new_data,
			    "title LTS\nlinux /vmlinuz-linux-lts\noptions root=/dev/sda2\noptions rw iommu=pt\n");
	assert_null(vw_plan_find(&p, "efi/loader/entries/windows.conf"));
	vw_plan_done(&p);
	vw_hostplan_done(&hp);

	/* The one-shot test boot copies the default entry (loader.conf's
	 * glob) and leaves the entries alone. */
	choices(&c, "devices = {\"0000:01:00\"}\ntest_boot = true\n");
	build_ok_idempotent(&p, &hp, &f, root, &c);
	assert_null(vw_plan_find(&p, "efi/loader/entries/arch.conf"));
	assert_null(vw_plan_find(&p, "efi/loader/entries/lts.conf"));
	assert_string_equal(find(&p, "efi/loader/entries/" VW_TEST_ENTRY)->new_data,
			    "title vfiowiz test boot (lts.conf)\nlinux /vmlinuz-linux-lts\noptions root=/dev/sda2\n"
			    "options rw iommu=pt\n");
	assert_string_equal(p.post_cmds[0], "bootctl set-oneshot " VW_TEST_ENTRY);
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	vw_choices_done(&c);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

static void test_plan_kernel_install(void **state)
{
	char *root = tu_mkroot();
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_plan p;
	struct vw_hostplan hp;

	(void)state;
	desktop(&f);
	f.distro.bootloader = VW_BL_KERNEL_INSTALL;
	choices(&c, "devices = {\"0000:01:00\"}\n");
	/* No /etc/kernel/cmdline yet: made from the running command line,
	 * without the loader's own tokens. */
	build_ok_idempotent(&p, &hp, &f, root, &c);
	assert_string_equal(find(&p, "etc/kernel/cmdline")->new_data, "root=/dev/sda1 ro quiet iommu=pt\n");
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	/* The Cmdline lens is the parser of record: two lines are refused. */
	tu_write(root, "etc/kernel/cmdline", "root=/dev/sda1\nquiet\n");
	{
		struct vw_err err = { 0 };

		assert_true(build(&p, &hp, &f, root, &c, &err) < 0);
		assert_true(vw_startswith(err.msg, "/etc/kernel/cmdline:"));
		vw_plan_done(&p);
		vw_hostplan_done(&hp);
	}
	vw_choices_done(&c);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

static void test_plan_initramfs_tools(void **state)
{
	char *root = tu_mkroot();
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_plan p;
	struct vw_hostplan hp;

	(void)state;
	desktop(&f);
	free(f.kernel.release);
	f.kernel.release = vw_xstrdup("6.1.0-18-amd64");
	f.kernel.minor = 1;
	f.distro.initramfs = VW_IRFS_INITRAMFS_TOOLS;
	tu_write(root, "etc/initramfs-tools/modules", "# modules\nvfio ids=x\nloop\n");
	/* A 6.2+ kernel is installed next to the running 6.1: no vfio_virqfd. */
	tu_mkdir(root, "usr/lib/modules/6.1.0-18-amd64");
	tu_mkdir(root, "usr/lib/modules/6.5.0-0.deb12.4-amd64");
	choices(&c, "devices = {\"0000:01:00\"}\n");
	build_ok_idempotent(&p, &hp, &f, root, &c);
	assert_string_equal(find(&p, "etc/initramfs-tools/modules")->new_data,
			    "# modules\nvfio ids=x\nloop\nvfio_pci\nvfio_iommu_type1\n");
	assert_string_equal(find(&p, VW_MODPROBE_CONF)->post[0], "update-initramfs -u -k all");
	assert_int_equal(hp.nchecks, 1);
	assert_string_equal(hp.checks[0].cmd, "lsinitramfs /boot/initrd.img-6.1.0-18-amd64");
	assert_string_equal(hp.checks[0].expect[0], "/vfio-pci.ko");
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	/* Only 6.1 installed: vfio_virqfd is listed. */
	tu_rmtree(root);
	tu_write(root, "etc/initramfs-tools/modules", "");
	build_ok_idempotent(&p, &hp, &f, root, &c);
	assert_string_equal(find(&p, "etc/initramfs-tools/modules")->new_data,
			    "vfio_pci\nvfio\nvfio_iommu_type1\nvfio_virqfd\n");
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	vw_choices_done(&c);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

static void test_plan_by_address(void **state)
{
	char *root = tu_mkroot();
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_plan p;
	struct vw_hostplan hp;
	const struct vw_change *ch;

	(void)state;
	desktop(&f);
	add_dev(&f, "0000:02:00.0", 0x10de, 0x2204, 0x030000, "nvidia", 0);
	add_dev(&f, "0000:02:00.1", 0x10de, 0x1aef, 0x040300, "snd_hda_intel", -1);
	f.distro.initramfs = VW_IRFS_DRACUT;
	choices(&c, "devices = {\"0000:02:00.0\"}\n");
	build_ok_idempotent(&p, &hp, &f, root, &c);
	assert_true(hp.by_address);
	/* Every function of the slot goes, by address. */
	assert_int_equal(hp.ndevs, 2);
	ch = find(&p, VW_MODPROBE_CONF);
	assert_non_null(strstr(ch->new_data, "install vfio-pci /" VW_BIND_SCRIPT " $CMDLINE_OPTS\n"));
	assert_null(strstr(ch->new_data, "ids="));
	ch = find(&p, VW_BIND_SCRIPT);
	assert_int_equal(ch->mode, 0755);
	assert_non_null(strstr(ch->new_data, "for dev in 0000:02:00.0 0000:02:00.1; do"));
	assert_string_equal(find(&p, VW_DRACUT_DROPIN)->new_data,
			    "# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.\n"
			    "force_drivers+=\" vfio_pci vfio vfio_iommu_type1 \"\n"
			    "install_items+=\" /etc/modprobe.d/vfiowiz.conf /usr/local/sbin/vfiowiz-vfio-bind \"\n");
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	/* With driverctl: its override files instead of our script. */
	f.distro.driverctl = true;
	build_ok_idempotent(&p, &hp, &f, root, &c);
	assert_string_equal(find(&p, "etc/driverctl.d/pci-0000:02:00.1")->new_data, "vfio-pci\n");
	assert_null(vw_plan_find(&p, VW_BIND_SCRIPT));
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	/* vfio-pci built in: modprobe never runs the script; driverctl only. */
	f.distro.driverctl = false;
	f.kernel.vfio_builtin = true;
	{
		struct vw_err err = { 0 };

		assert_int_equal(build(&p, &hp, &f, root, &c, &err), -EPERM);
		assert_non_null(strstr(err.msg, "needs driverctl"));
		vw_plan_done(&p);
		vw_hostplan_done(&hp);
	}
	vw_choices_done(&c);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

static void test_plan_builtin_vfio(void **state)
{
	char *root = tu_mkroot();
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_plan p;
	struct vw_hostplan hp;

	(void)state;
	desktop(&f);
	f.kernel.vfio_builtin = true;
	f.distro.bootloader = VW_BL_KERNEL_INSTALL;
	f.distro.initramfs = VW_IRFS_MKINITCPIO;
	tu_write(root, "etc/kernel/cmdline", "root=/dev/sda2 rw\n");
	tu_write(root, "etc/mkinitcpio.conf", "MODULES=()\nHOOKS=(base udev autodetect modconf block)\n");
	choices(&c, "devices = {\"0000:01:00\"}\n");
	build_ok_idempotent(&p, &hp, &f, root, &c);
	/* modprobe options never reach a built-in driver: the command line. */
	assert_string_equal(find(&p, "etc/kernel/cmdline")->new_data,
			    "root=/dev/sda2 rw iommu=pt vfio-pci.ids=10de:2204,10de:1aef\n");
	assert_null(strstr(find(&p, VW_MODPROBE_CONF)->new_data, "options"));
	assert_null(vw_plan_find(&p, "etc/mkinitcpio.conf"));
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	vw_choices_done(&c);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

static void test_plan_mkinitcpio_booster(void **state)
{
	char *root = tu_mkroot();
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_plan p;
	struct vw_hostplan hp;

	(void)state;
	desktop(&f);
	f.distro.initramfs = VW_IRFS_MKINITCPIO;
	/* Old style: MODULES as a string, empty; HOOKS without modconf. */
	tu_write(root, "etc/mkinitcpio.conf", "MODULES=\"\"\nHOOKS=\"base udev block filesystems\"\n");
	choices(&c, "devices = {\"0000:01:00\"}\n");
	build_ok_idempotent(&p, &hp, &f, root, &c);
	assert_string_equal(find(&p, "etc/mkinitcpio.conf")->new_data,
			    "MODULES=\"vfio_pci vfio vfio_iommu_type1\"\nHOOKS=\"base udev modconf block filesystems\"\n");
	assert_string_equal(hp.checks[0].cmd, "lsinitcpio /boot/initramfs-linux.img");
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	tu_rmtree(root);

	f.distro.initramfs = VW_IRFS_BOOSTER;
	tu_write(root, "etc/booster.yaml", "compress: zstd\n");
	build_ok_idempotent(&p, &hp, &f, root, &c);
	assert_string_equal(find(&p, "etc/booster.yaml")->new_data,
			    "compress: zstd\nmodules_force_load: vfio_pci,vfio,vfio_iommu_type1\n");
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	vw_choices_done(&c);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

/* A command line with a '"' never closed is not edited: what we append would
 * be part of the quoted text.  Each back end names the file. */
static void test_plan_open_quote(void **state)
{
	static const char open_line[] = "quiet vfio_pci.ids=10de:2204 \"unterminated";
	char *root = tu_mkroot();
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_plan p;
	struct vw_hostplan hp;
	struct vw_err err = { 0 };
	char *text;

	(void)state;
	desktop(&f);
	choices(&c, "devices = {\"0000:01:00\"}\n");

	f.distro.bootloader = VW_BL_GRUB;
	f.distro.grub_d = true;
	text = vw_xasprintf("GRUB_CMDLINE_LINUX_DEFAULT='%s'\n", open_line);
	tu_write(root, "etc/default/grub", text);
	free(text);
	assert_int_equal(build(&p, &hp, &f, root, &c, &err), -EINVAL);
	assert_true(vw_startswith(err.msg, "/etc/default/grub (GRUB_CMDLINE_LINUX_DEFAULT): the kernel command line has a '\"' that is never closed"));
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	/* Fixed in a later drop-in: fine again. */
	tu_write(root, "etc/default/grub.d/50-fix.cfg", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n");
	build_ok_idempotent(&p, &hp, &f, root, &c);
	vw_plan_done(&p);
	vw_hostplan_done(&hp);

	/* /etc/kernel/cmdline: augeas' Cmdline lens refuses it first. */
	f.distro.bootloader = VW_BL_KERNEL_INSTALL;
	text = vw_xasprintf("%s\n", open_line);
	tu_write(root, "etc/kernel/cmdline", text);
	free(text);
	assert_true(build(&p, &hp, &f, root, &c, &err) < 0);
	assert_true(vw_startswith(err.msg, "/etc/kernel/cmdline:"));
	vw_plan_done(&p);
	vw_hostplan_done(&hp);

	f.distro.bootloader = VW_BL_SYSTEMD_BOOT;
	text = vw_xasprintf("title Arch\nlinux /vmlinuz-linux\noptions root=/dev/sda2\noptions %s\n", open_line);
	tu_write(root, "efi/loader/entries/arch.conf", text);
	free(text);
	assert_int_equal(build(&p, &hp, &f, root, &c, &err), -EINVAL);
	assert_true(vw_startswith(err.msg, "/efi/loader/entries/arch.conf: the kernel command line has a '\"'"));
	vw_plan_done(&p);
	vw_hostplan_done(&hp);

	vw_choices_done(&c);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

static void test_plan_refusals(void **state)
{
	char *root = tu_mkroot();
	struct vw_facts f;
	struct vw_choices c = { 0 };
	struct vw_plan p;
	struct vw_hostplan hp;
	struct vw_err err = { 0 };

	(void)state;
	desktop(&f);
	f.kernel.acs_override_support = VW_UNKNOWN;
	choices(&c, "devices = {\"0000:01:00\"}\nacs_override = ids\n");
	assert_int_equal(build(&p, &hp, &f, root, &c, &err), -EPERM);
	assert_true(vw_startswith(err.msg, "t.conf:2: acs_override refused: cannot tell whether this kernel"));
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	/* With the patch: the device and the ports above it without ACS. */
	f.kernel.acs_override_support = VW_YES;
	add_dev(&f, "0000:00:01.0", 0x8086, 0x1901, 0x060400, "pcieport", -1)->pcie_type = VW_PCIE_ROOT_PORT;
	f.devs[1].parent = f.devs[2].parent = 3;
	assert_int_equal(build(&p, &hp, &f, root, &c, &err), 0);
	assert_string_equal(hp.boot ? "boot" : "none", "none");
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	f.distro.bootloader = VW_BL_KERNEL_INSTALL;
	assert_int_equal(build(&p, &hp, &f, root, &c, &err), 0);
	assert_string_equal(find(&p, "etc/kernel/cmdline")->new_data,
			    "root=/dev/sda1 ro quiet iommu=pt pcie_acs_override=id:10de:2204,id:8086:1901,id:10de:1aef\n");
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	/* A bootloader named in the answers must be there. */
	choices(&c, "\ndevices = {\"0000:01:00\"}\nbootloader = grub\n");
	assert_int_equal(build(&p, &hp, &f, root, &c, &err), -EINVAL);
	assert_string_equal(err.msg, "t.conf:3: bootloader = grub, but this host shows no sign of it (detected: kernel-install)");
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	choices(&c, "devices = {}\n");
	assert_int_equal(build(&p, &hp, &f, root, &c, &err), -EINVAL);
	assert_string_equal(err.msg, "t.conf: no devices chosen: list them in 'devices'");
	vw_plan_done(&p);
	vw_hostplan_done(&hp);
	vw_choices_done(&c);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect_boot),
		cmocka_unit_test(test_detect_one_chain),
		cmocka_unit_test(test_detect_irfs),
		cmocka_unit_test(test_shell_values),
		cmocka_unit_test(test_augeas),
		cmocka_unit_test(test_bind_ids),
		cmocka_unit_test(test_lockout),
		cmocka_unit_test(test_host_modules),
		cmocka_unit_test(test_plan_grub_main),
		cmocka_unit_test(test_plan_grub_dropin),
		cmocka_unit_test(test_plan_systemd_boot),
		cmocka_unit_test(test_plan_kernel_install),
		cmocka_unit_test(test_plan_initramfs_tools),
		cmocka_unit_test(test_plan_by_address),
		cmocka_unit_test(test_plan_builtin_vfio),
		cmocka_unit_test(test_plan_mkinitcpio_booster),
		cmocka_unit_test(test_plan_refusals),
		cmocka_unit_test(test_plan_open_quote),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
