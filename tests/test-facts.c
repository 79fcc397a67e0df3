/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-facts.c - unit tests of the sysroot, the probes and the findings. */
#include "testutil.h"
#include "acs.h"
#include "facts.h"
#include "findings.h"
#include "json.h"
#include "report.h"
#include "sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

static struct vw_sysroot *open_root(const char *root)
{
	struct vw_sysroot *sr = NULL;
	struct vw_err err = { 0 };

	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	return sr;
}

static void test_cmdline(void **state)
{
	struct vw_param *p;
	bool present;
	size_t n = vw_cmdline_parse("BOOT_IMAGE=/vmlinuz root=UUID=ab-cd ro  quiet "
				    "acpi_osi=\"Windows 2015\" intel_iommu=off intel-iommu=on\n", &p);

	(void)state;
	assert_int_equal(n, 7);
	assert_string_equal(p[0].key, "BOOT_IMAGE");
	assert_string_equal(p[0].value, "/vmlinuz");
	assert_string_equal(p[1].value, "UUID=ab-cd");
	assert_null(p[2].value);
	assert_string_equal(p[4].key, "acpi_osi");
	assert_string_equal(p[4].value, "Windows 2015");
	/* The last occurrence wins, and '-' equals '_' in names. */
	assert_string_equal(vw_cmdline_get(p, n, "intel_iommu", NULL), "on");
	assert_null(vw_cmdline_get(p, n, "quiet", &present));
	assert_true(present);
	assert_null(vw_cmdline_get(p, n, "iommu", &present));
	assert_false(present);
	vw_params_free(p, n);
	assert_int_equal(vw_cmdline_parse("   ", &p), 0);
	vw_params_free(p, 0);
}

static void test_sysroot_stays_inside(void **state)
{
	char *root = tu_mkroot(), *buf = NULL, **names;
	struct vw_sysroot *sr;
	long v;

	(void)state;
	tu_write(root, "etc/target", "inside\n");
	tu_symlink(root, "etc/abs", "/etc/target");
	tu_symlink(root, "etc/escape", "../../../../../../etc/hostname");
	tu_symlink(root, "etc/loop", "loop");
	tu_write(root, "sys/x/garbage", "zzz\n");
	tu_write(root, "sys/x/num", "0x10de\n");
	sr = open_root(root);
	assert_int_equal(vw_sysroot_read(sr, "/etc/abs", &buf, NULL, 100, NULL), 0);
	assert_string_equal(buf, "inside\n");
	free(buf);
	/* ".." cannot climb out of the root: the host's file is not read. */
	assert_true(vw_sysroot_read(sr, "etc/escape", &buf, NULL, 100, NULL) < 0);
	assert_int_equal(vw_sysroot_read(sr, "etc/loop", &buf, NULL, 100, NULL), -ELOOP);
	assert_int_equal(vw_sysroot_read(sr, "etc/target", &buf, NULL, 3, NULL), -EFBIG);
	assert_int_equal(vw_sysroot_read_long(sr, "sys/x/garbage", &v), -EINVAL);
	assert_int_equal(vw_sysroot_read_long(sr, "sys/x/num", &v), 0);
	assert_int_equal(v, 0x10de);
	assert_int_equal(vw_sysroot_read_long(sr, "sys/x/none", &v), -ENOENT);
	assert_int_equal(vw_sysroot_list(sr, "etc", &names), 4);
	assert_string_equal(names[0], "abs");
	assert_string_equal(names[3], "target");
	vw_strv_free(names);
	buf = vw_sysroot_link_base(sr, "etc/abs");
	assert_string_equal(buf, "target");
	free(buf);
	buf = vw_sysroot_realpath(sr, "etc/abs");
	assert_string_equal(buf, "etc/target");
	free(buf);
	assert_false(vw_sysroot_is_host(sr));
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
}

/* A path through ".." is opened even while the machine renames files: the
 * kernel then answers openat2(RESOLVE_IN_ROOT) with EAGAIN, which used to
 * reach the caller (a device of a busy build host lost its group). */
static void test_sysroot_renames_elsewhere(void **state)
{
	char *root = tu_mkroot(), *a, *b;
	struct vw_sysroot *sr;
	int failed = 0, ready[2];
	pid_t pid;
	char c;

	(void)state;
	tu_write(root, "sys/devices/pci0000:00/0000:00:01.0/vendor", "0x8086\n");
	tu_symlink(root, "sys/bus/pci/devices/0000:00:01.0", "../../../devices/pci0000:00/0000:00:01.0");
	tu_write(root, "tmp/a", "x");
	a = vw_xasprintf("%s/tmp/a", root);
	b = vw_xasprintf("%s/tmp/b", root);
	sr = open_root(root);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(ready[0]);
		for (;;) {	/* until killed */
			if (rename(a, b) == 0)
				rename(b, a);
			if (ready[1] >= 0) {
				(void)!write(ready[1], "r", 1);
				close(ready[1]);
				ready[1] = -1;
			}
		}
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);	/* renaming now */
	close(ready[0]);
	for (int i = 0; i < 200000; i++) {
		int fd = vw_sysroot_openat(sr, "sys/bus/pci/devices/0000:00:01.0/vendor", O_RDONLY, 0);

		if (fd < 0)
			failed++;
		else
			close(fd);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(failed, 0);
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
	free(a);
	free(b);
}

static void test_cpu_and_container(void **state)
{
	char *root = tu_mkroot();
	struct vw_sysroot *sr;
	struct vw_facts f;

	(void)state;
	tu_write(root, "proc/cpuinfo",
		 "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Core(TM) i7-9700K\n"
		 "flags\t\t: fpu vme de pse hypervisorx\nvmx flags\t: vnmi preemption_timer\n\n"
		 "processor\t: 1\nflags\t\t: vmx\n");
	tu_write(root, "sys/class/dmi/id/sys_vendor", "QEMU\n");
	tu_write(root, ".dockerenv", "");
	sr = open_root(root);
	memset(&f, 0, sizeof(f));
	vw_probe_cpu(&f, sr);
	vw_probe_container(&f, sr);
	assert_int_equal(f.cpu.vendor, VW_CPU_INTEL);
	assert_false(f.cpu.vmx);	/* only the first processor counts */
	assert_true(f.cpu.virt_disabled_by_bios);
	assert_true(f.cpu.hypervisor);	/* from DMI: "hypervisorx" is no flag */
	assert_string_equal(f.cpu.hypervisor_name, "QEMU/KVM");
	assert_true(f.container.inside);
	assert_string_equal(f.container.kind, "docker");
	vw_facts_done(&f);

	/* A VM image made from a container image keeps /.dockerenv, but its
	 * root is a block device, not Docker's overlay. */
	tu_write(root, "proc/self/mounts", "overlay / overlay rw 0 0\n/dev/vda / ext4 rw 0 0\n");
	memset(&f, 0, sizeof(f));
	vw_probe_container(&f, sr);
	assert_false(f.container.inside);
	vw_facts_done(&f);
	tu_write(root, "proc/self/mounts", "/dev/vda / ext4 rw 0 0\noverlay / overlay rw 0 0\n");
	memset(&f, 0, sizeof(f));
	vw_probe_container(&f, sr);
	assert_true(f.container.inside);
	vw_facts_done(&f);
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
}

static void write_gz(const char *root, const char *rel, const char *text)
{
	char *path = vw_xasprintf("%s/%s", root, rel);
	gzFile gz;

	tu_write(root, rel, "");
	gz = gzopen(path, "wb");
	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, text, (unsigned)strlen(text)), (int)strlen(text));
	gzclose(gz);
	free(path);
}

static void test_kernel_config(void **state)
{
	char *root = tu_mkroot();
	struct vw_sysroot *sr;
	struct vw_facts f;

	(void)state;
	tu_write(root, "proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
	tu_write(root, "proc/cmdline", "root=/dev/sda1 pcie_acs_override=downstream iommu=pt\n");
	tu_write(root, "boot/config-6.1.0-18-amd64",
		 "# CONFIG_INTEL_IOMMU_DEFAULT_ON is not set\nCONFIG_INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF=y\n");
	sr = open_root(root);
	memset(&f, 0, sizeof(f));
	vw_probe_kernel(&f, sr);
	vw_probe_iommu(&f, sr);
	assert_int_equal(f.kernel.major, 6);
	assert_int_equal(f.kernel.minor, 1);
	assert_int_equal(f.kernel.intel_default_on, VW_NO);
	assert_int_equal(f.kernel.intel_default_intgpu_off, VW_YES);
	assert_int_equal(f.kernel.acs_override_support, VW_NO);	/* Debian's stock kernel */
	assert_false(f.kernel.acs_override_active);
	assert_true(f.iommu.passthrough);
	vw_facts_done(&f);
	vw_sysroot_free(sr);

	/* No /boot/config: /proc/config.gz is read; a -pve kernel has the patch. */
	tu_rmtree(root);
	tu_write(root, "proc/sys/kernel/osrelease", "6.8.12-4-pve\n");
	tu_write(root, "proc/cmdline", "pcie_acs_override=downstream,multifunction\n");
	write_gz(root, "proc/config.gz", "CONFIG_INTEL_IOMMU_DEFAULT_ON=y\n");
	sr = open_root(root);
	memset(&f, 0, sizeof(f));
	vw_probe_kernel(&f, sr);
	assert_string_equal(f.kernel.config_source, "proc/config.gz");
	assert_int_equal(f.kernel.intel_default_on, VW_YES);
	assert_int_equal(f.kernel.intel_default_intgpu_off, VW_UNKNOWN);
	assert_int_equal(f.kernel.acs_override_support, VW_YES);
	assert_true(f.kernel.acs_override_active);
	vw_facts_done(&f);
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
}

/* A host with Intel CPU, VT-x, a DMAR table and the given extras. */
static void base_host(const char *root)
{
	tu_write(root, "proc/cpuinfo", "vendor_id\t: GenuineIntel\nflags\t\t: fpu vmx\n");
	tu_write(root, "proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
	tu_write(root, "proc/cmdline", "ro quiet\n");
	tu_write(root, "sys/firmware/acpi/tables/DMAR", "DMAR");
	tu_write(root, "etc/os-release", "ID=debian\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n");
	tu_write(root, "etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n");
	tu_mkdir(root, "etc/initramfs-tools");
}

static int probe_rc(const char *root, struct vw_facts *f, struct vw_findings *fs)
{
	struct vw_sysroot *sr = open_root(root);
	struct vw_err err = { 0 };

	assert_int_equal(vw_facts_probe(f, sr, &err), 0);
	vw_sysroot_free(sr);
	vw_findings_eval(f, fs);
	return vw_findings_exit_code(fs);
}

static void test_findings(void **state)
{
	char *root = tu_mkroot();
	struct vw_facts f;
	struct vw_findings fs;

	(void)state;
	/* DMAR, no groups, kernel default off: intel_iommu=on is needed. */
	base_host(root);
	tu_write(root, "boot/config-6.1.0-18-amd64", "# CONFIG_INTEL_IOMMU_DEFAULT_ON is not set\n");
	assert_int_equal(probe_rc(root, &f, &fs), 1);
	assert_non_null(vw_findings_get(&fs, "iommu-needs-param"));
	assert_int_equal(f.distro.bootloader, VW_BL_GRUB);
	assert_int_equal(f.distro.initramfs, VW_IRFS_INITRAMFS_TOOLS);
	assert_true(vw_needs_intel_iommu_on(&f, false));
	vw_findings_done(&fs);
	vw_facts_done(&f);

	/* Off on the command line. */
	tu_write(root, "proc/cmdline", "ro intel_iommu=off\n");
	assert_int_equal(probe_rc(root, &f, &fs), 1);
	assert_non_null(vw_findings_get(&fs, "iommu-cmdline-off"));
	vw_findings_done(&fs);
	vw_facts_done(&f);

	/* INTGPU_OFF: not needed for a discrete target, needed for the iGPU. */
	tu_write(root, "proc/cmdline", "ro\n");
	tu_write(root, "boot/config-6.1.0-18-amd64", "CONFIG_INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF=y\n");
	assert_int_equal(probe_rc(root, &f, &fs), 1);
	assert_non_null(vw_findings_get(&fs, "iommu-intgpu-off"));
	assert_false(vw_needs_intel_iommu_on(&f, false));
	assert_true(vw_needs_intel_iommu_on(&f, true));
	vw_findings_done(&fs);
	vw_facts_done(&f);

	/* Groups present: ready. */
	tu_mkdir(root, "sys/kernel/iommu_groups/0/devices");
	tu_mkdir(root, "sys/class/iommu/dmar0");
	assert_int_equal(probe_rc(root, &f, &fs), 0);
	assert_non_null(vw_findings_get(&fs, "iommu-active"));
	assert_non_null(vw_findings_get(&fs, "group-odd"));	/* group 0 holds no device */
	vw_findings_done(&fs);
	vw_facts_done(&f);

	/* No table at all, bare metal: a firmware setting, so not possible. */
	tu_rmtree(root);
	base_host(root);
	{
		char *dmar = vw_xasprintf("%s/sys/firmware/acpi/tables/DMAR", root);
		unlink(dmar);	/* LeakSanitizer fails the sanitizer run on a leak */
		free(dmar);
	}
	assert_int_equal(probe_rc(root, &f, &fs), 2);
	assert_non_null(vw_findings_get(&fs, "iommu-firmware-off"));
	vw_findings_done(&fs);
	vw_facts_done(&f);

	/* Inside a container: not possible, whatever else. */
	tu_write(root, "run/.containerenv", "");
	assert_int_equal(probe_rc(root, &f, &fs), 2);
	assert_non_null(vw_findings_get(&fs, "container"));
	vw_findings_done(&fs);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

/* The last line of `check`'s text: the verdict and the next step. */
static char *verdict_line(const struct vw_facts *f, const struct vw_findings *fs)
{
	struct vw_buf b = VW_BUF_INIT;
	char *last, *r;

	vw_report_check_text(&b, f, fs);
	b.data[b.len - 1] = '\0';
	last = strrchr(b.data, '\n');
	r = vw_xstrdup(last ? last + 1 : b.data);
	vw_buf_done(&b);
	return r;
}

/* Issue 14 item 13: a /proc/cmdline past the read limit (50 MB, as a
 * hostile snapshot had it) is said, and the verdict is never "Ready". */
static void test_cmdline_unreadable(void **state)
{
	char *root = tu_mkroot(), *path, *line;
	struct vw_facts f;
	struct vw_findings fs;
	FILE *fp;

	(void)state;
	base_host(root);
	tu_mkdir(root, "sys/kernel/iommu_groups/0/devices");
	tu_mkdir(root, "sys/class/iommu/dmar0");
	path = vw_xasprintf("%s/proc/cmdline", root);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fputs("ro intel_iommu=on ", fp) >= 0, 1);
	assert_int_equal(ftruncate(fileno(fp), 50l << 20), 0);
	fclose(fp);
	free(path);
	assert_int_equal(probe_rc(root, &f, &fs), 2);
	assert_true(f.kernel.cmdline_unreadable);
	assert_string_equal(f.kernel.cmdline, "");
	assert_non_null(vw_findings_get(&fs, "cmdline-unreadable"));
	line = verdict_line(&f, &fs);
	assert_null(strstr(line, "Ready"));
	assert_non_null(strstr(line, "vfiowiz check"));
	free(line);
	vw_findings_done(&fs);
	vw_facts_done(&f);

	/* A normal one again: read, no finding. */
	tu_write(root, "proc/cmdline", "ro quiet\n");
	assert_int_equal(probe_rc(root, &f, &fs), 0);
	assert_false(f.kernel.cmdline_unreadable);
	assert_null(vw_findings_get(&fs, "cmdline-unreadable"));
	vw_findings_done(&fs);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

/* Issue 13 item 6: every verdict ends with the next step; two GPUs in one
 * group (and only the boot display alone) are not "Ready for passthrough". */
static void test_verdict_next_step(void **state)
{
	static const struct {
		const char *host, *want;
		int rc;
	} hosts[] = {
		{ "identical-gpus-shared", "Passthrough is possible only with the limits marked WARN above. Next: run vfiowiz", 0 },
		{ "demo", "Ready for passthrough. Next: run vfiowiz", 0 },
		{ "iommu-off-cmdline", "Ready after changes the wizard can make. Next: run vfiowiz", 1 },
		{ "iommu-off-firmware", "Passthrough is not possible on this machine as it is. Next: fix the lines marked STOP, then run vfiowiz check again.", 2 },
	};

	(void)state;
	for (size_t i = 0; i < VW_ARRAY_SIZE(hosts); i++) {
		char *root = tu_host(hosts[i].host), *line;
		struct vw_facts f;
		struct vw_findings fs;
		struct vw_buf j = VW_BUF_INIT;

		if (!root)
			skip();
		assert_int_equal(probe_rc(root, &f, &fs), hosts[i].rc);
		line = verdict_line(&f, &fs);
		if (!vw_startswith(line, hosts[i].want))
			fail_msg("%s: \"%s\"", hosts[i].host, line);
		free(line);
		vw_report_check_json(&j, &f, &fs);
		assert_non_null(strstr(j.data, i == 0 ? "\"limited\": true" : "\"limited\": false"));
		assert_non_null(strstr(j.data, "\"next_step\": \"Next: "));
		vw_buf_done(&j);
		if (i == 0) {
			const struct vw_finding *x = vw_findings_get(&fs, "gpu-group-shared");

			assert_non_null(x);
			assert_non_null(strstr(x->msg, "0000:04:00.0"));
			assert_non_null(vw_findings_get(&fs, "gpu-limits"));
		}
		if (i == 1) {
			/* The boot display's group holds the NIC and the keyboard's
			 * controller: said, but the RTX 3090 can go alone. */
			assert_non_null(vw_findings_get(&fs, "gpu-group-host"));
			assert_null(vw_findings_get(&fs, "gpu-limits"));
			assert_non_null(vw_findings_get(&fs, "host-device"));
		}
		vw_findings_done(&fs);
		vw_facts_done(&f);
		free(root);
	}
}

/* One PCI function in a hand-made sysfs tree. */
static void add_dev(const char *root, const char *path, const char *addr, const char *vendor,
		    const char *cls, int group)
{
	char *rel = vw_xasprintf("sys/devices/%s", path), *f;

	f = vw_xasprintf("%s/vendor", rel), tu_write(root, f, vendor), free(f);
	f = vw_xasprintf("%s/device", rel), tu_write(root, f, "0x2204\n"), free(f);
	f = vw_xasprintf("%s/class", rel), tu_write(root, f, cls), free(f);
	f = vw_xasprintf("%s/irq", rel), tu_write(root, f, "0\n"), free(f);
	f = vw_xasprintf("sys/bus/pci/devices/%s", addr);
	{
		char *t = vw_xasprintf("../../../devices/%s", path);
		tu_symlink(root, f, t);
		free(t);
	}
	free(f);
	if (group >= 0) {
		char *t = vw_xasprintf("sys/kernel/iommu_groups/%d", group);
		int depth = 2;	/* "sys/devices/" -> up to "sys" */

		for (const char *p = path; *p; p++)
			depth += *p == '/';
		{
			char *d = vw_xasprintf("%s/devices", t);
			tu_mkdir(root, d);
			free(d);
		}
		f = vw_xasprintf("%s/iommu_group", rel);
		{
			struct vw_buf b = VW_BUF_INIT;
			for (int i = 0; i < depth; i++)
				vw_buf_adds(&b, "../");
			vw_buf_printf(&b, "kernel/iommu_groups/%d", group);
			tu_symlink(root, f, b.data);
			vw_buf_done(&b);
		}
		free(f);
		free(t);
	}
	free(rel);
}

static void test_pci_bad_input(void **state)
{
	char *root = tu_mkroot();
	struct vw_facts f;
	struct vw_findings fs;
	int i;

	(void)state;
	base_host(root);
	add_dev(root, "pci0000:00/0000:00:01.0", "0000:00:01.0", "0x8086\n", "0x060400\n", 1);
	add_dev(root, "pci0000:00/0000:00:01.0/0000:01:00.0", "0000:01:00.0", "0x10de\n", "0x030000\n", 1);
	add_dev(root, "pci0000:00/0000:00:01.0/0000:01:00.1", "0000:01:00.1", "0x10de\n", "0x040300\n", 1);
	add_dev(root, "pci0000:00/0000:00:02.0", "0000:00:02.0", "zzz\n", "0x030000\n", 2);
	add_dev(root, "pci0000:00/0000:00:03.0", "0000:00:03.0", "0x1af4\n", "0x020000\n", -1);
	/* A device whose vendor file is missing, and a bogus entry name. */
	tu_mkdir(root, "sys/devices/pci0000:00/0000:00:04.0");
	tu_symlink(root, "sys/bus/pci/devices/0000:00:04.0", "../../../devices/pci0000:00/0000:00:04.0");
	tu_symlink(root, "sys/bus/pci/devices/bogus", "bogus");
	tu_mkdir(root, "sys/kernel/iommu_groups/7/devices");

	assert_int_equal(probe_rc(root, &f, &fs), 0);
	assert_int_equal(f.ndevs, 6);
	i = vw_facts_find_dev(&f, "0000:01:00.0");
	assert_true(i >= 0);
	assert_int_equal(f.devs[i].role, VW_ROLE_GPU);
	assert_int_equal(f.devs[i].group, 1);
	assert_string_equal(f.devs[f.devs[i].parent].addr, "0000:00:01.0");
	assert_string_equal(f.devs[i].vendor_name, "NVIDIA Corporation");
	i = vw_facts_find_dev(&f, "0000:01:00.1");
	assert_int_equal(f.devs[i].role, VW_ROLE_COMPANION);
	assert_string_equal(f.devs[f.devs[i].gpu].addr, "0000:01:00.0");
	i = vw_facts_find_dev(&f, "0000:00:02.0");
	assert_true(strstr(f.devs[i].note, "garbage") != NULL);
	i = vw_facts_find_dev(&f, "0000:00:04.0");
	assert_true(strstr(f.devs[i].note, "cannot read") != NULL);
	assert_int_equal(f.ngroups, 3);
	assert_int_equal(vw_facts_group(&f, 1)->verdict, VW_GROUP_BRIDGES_ONLY);
	assert_int_equal(vw_facts_group(&f, 7)->verdict, VW_GROUP_EMPTY);
	assert_int_equal(f.nnotes, 2);	/* the bogus entry; no sys/block */
	assert_non_null(strstr(f.notes[1], "could not be listed"));
	assert_non_null(vw_findings_get(&fs, "device-unreadable"));
	vw_findings_done(&fs);
	vw_facts_done(&f);
	tu_rmtree(root);
	free(root);
}

static void test_json_escape(void **state)
{
	struct vw_buf b = VW_BUF_INIT;

	(void)state;
	vw_json_escape(&b, "a\"b\\c\n\x01\xff\xc3\xa9\xe2\x82");
	assert_string_equal(b.data, "\"a\\\"b\\\\c\\n\\u0001\\ufffd\xc3\xa9\\ufffd\\ufffd\"");
	vw_buf_done(&b);
}

/* Synthetic facts for the ACS model: a root port without ACS holding a
 * two-function GPU and a NIC behind a switch. */
static void acs_host(struct vw_facts *f)
{
	static const struct { const char *addr; int parent; unsigned cls; enum vw_pcie_type t; bool mf; bool acs; } d[] = {
		{ "0000:00:01.0", -1, 0x060400, VW_PCIE_ROOT_PORT, false, false },
		{ "0000:01:00.0", 0, 0x060400, VW_PCIE_UPSTREAM, false, false },
		{ "0000:02:01.0", 1, 0x060400, VW_PCIE_DOWNSTREAM, false, false },
		{ "0000:02:02.0", 1, 0x060400, VW_PCIE_DOWNSTREAM, false, false },
		{ "0000:03:00.0", 2, 0x030000, VW_PCIE_ENDPOINT, true, false },
		{ "0000:03:00.1", 2, 0x040300, VW_PCIE_ENDPOINT, true, false },
		{ "0000:04:00.0", 3, 0x020000, VW_PCIE_ENDPOINT, false, false },
	};

	memset(f, 0, sizeof(*f));
	f->ndevs = VW_ARRAY_SIZE(d);
	f->devs = vw_xcalloc(f->ndevs, sizeof(*f->devs));
	for (size_t i = 0; i < f->ndevs; i++) {
		struct vw_pci_dev *x = &f->devs[i];
		unsigned dom, bus, dev, fn;

		sscanf(d[i].addr, "%x:%x:%x.%x", &dom, &bus, &dev, &fn);
		strcpy(x->addr, d[i].addr);
		x->bus = bus, x->dev = dev, x->func = fn;
		x->parent = d[i].parent;
		x->class_code = d[i].cls;
		x->pcie_type = d[i].t;
		x->multifunction = d[i].mf;
		x->config_full = true;
		x->group = 1;	/* today: everything in one group */
		x->vendor = 0x10de;
		x->device = 0x1000 + (unsigned)i;
	}
	f->ngroups = 1;
}

static void test_acs(void **state)
{
	struct vw_acs_override ov;
	struct vw_acs_preview p;
	struct vw_buf b = VW_BUF_INIT;
	struct vw_facts f;
	struct vw_err err = { 0 };

	(void)state;
	assert_int_equal(vw_acs_parse("downstream,multifunction,id:10de:1004", &ov, &err), 0);
	assert_true(ov.downstream && ov.multifunction);
	assert_int_equal(ov.nids, 1);
	vw_acs_format(&ov, &b);
	assert_string_equal(b.data, "downstream,multifunction,id:10de:1004");
	vw_buf_done(&b);
	assert_true(vw_acs_parse("upstream", &ov, &err) < 0);
	assert_non_null(strstr(err.msg, "upstream"));
	assert_true(vw_acs_parse("id:zz", &ov, &err) < 0);

	acs_host(&f);
	vw_acs_simulate(&f, NULL, &p);
	assert_int_equal(p.ngroups, 1);
	assert_true(p.model_matches);
	vw_acs_preview_done(&p);

	/* downstream: the root port and switch ports count as isolated, so
	 * the GPU slot and the NIC split; the GPU's two functions (a
	 * multifunction slot without ACS) stay together. */
	vw_acs_parse("downstream", &ov, NULL);
	vw_acs_simulate(&f, &ov, &p);
	assert_int_equal(p.group[4], p.group[5]);
	assert_int_not_equal(p.group[4], p.group[6]);
	assert_int_not_equal(p.group[0], p.group[4]);
	vw_acs_preview_done(&p);

	/* downstream,multifunction: the GPU's functions split too. */
	vw_acs_parse("downstream,multifunction", &ov, NULL);
	vw_acs_simulate(&f, &ov, &p);
	assert_int_not_equal(p.group[4], p.group[5]);
	vw_acs_preview_done(&p);

	/* A real ACS capability is never overridden: with ACS present but
	 * disabled on the root port, downstream changes nothing there. */
	f.devs[0].has_acs = true;
	f.devs[0].acs_cap = 0x1f;
	f.devs[0].acs_ctrl = 0;
	vw_acs_parse("downstream", &ov, NULL);
	vw_acs_simulate(&f, &ov, &p);
	assert_int_equal(p.ngroups, 1);
	vw_acs_preview_done(&p);
	free(f.devs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_sysroot_stays_inside),
		cmocka_unit_test(test_sysroot_renames_elsewhere),
		cmocka_unit_test(test_cpu_and_container),
		cmocka_unit_test(test_kernel_config),
		cmocka_unit_test(test_findings),
		cmocka_unit_test(test_cmdline_unreadable),
		cmocka_unit_test(test_verdict_next_step),
		cmocka_unit_test(test_pci_bad_input),
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_acs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
