/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-storage.c - disks read with libblkid from real filesystem images
 * (made here with sfdisk and mkfs), the host's claims on them, images. */
#include "testutil.h"
#include "exec.h"
#include "storage.h"
#include "sysroot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define ROOT_UUID "11111111-2222-3333-4444-555555555555"
#define SRV_UUID "66666666-7777-8888-9999-aaaaaaaaaaaa"

/* The images, made in DIR/.vfiowiz/blockdevs by the tools themselves. */
static const char mkdisks[] =
	"set -e; PATH=$PATH:/sbin:/usr/sbin; cd \"$1\"\n"
	"for t in sfdisk mkfs.ext4 mkfs.vfat truncate; do command -v $t >/dev/null || exit 77; done\n"
	/* sda: GPT, ESP + root */
	"truncate -s 64M sda.img\n"
	"printf 'label: gpt\\nsize=16MiB, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=esp\\n"
	"size=40MiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=root\\n' | sfdisk -q sda.img\n"
	"mkfs.vfat -n ESP --offset=2048 sda.img 16384 >/dev/null 2>&1\n"
	"mkfs.ext4 -q -F -L root -U " ROOT_UUID " -E offset=17825792 sda.img 40M\n"
	/* sdb: GPT, one ext4 "data": free */
	"truncate -s 32M sdb.img\n"
	"printf 'label: gpt\\nsize=24MiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4\\n' | sfdisk -q sdb.img\n"
	"mkfs.ext4 -q -F -L data -E offset=1048576 sdb.img 24M\n"
	/* sdc: ext4 on the whole disk, in the host's fstab */
	"truncate -s 16M sdc.img\n"
	"mkfs.ext4 -q -F -L srv -U " SRV_UUID " sdc.img\n"
	/* sdd: an LVM physical volume (partition type only) */
	"truncate -s 16M sdd.img\n"
	"printf 'label: gpt\\ntype=E6D6D379-F507-44C2-A23C-238F2A3DF928\\n' | sfdisk -q sdd.img\n"
	/* sde: a swap partition */
	"truncate -s 16M sde.img\n"
	"printf 'label: dos\\ntype=82\\n' | sfdisk -q sde.img\n"
	/* nvme0n1: DOS table, an ESP type 0xef with FAT: free, but warned */
	"truncate -s 32M nvme0n1.img\n"
	"printf 'label: dos\\nsize=20MiB, type=ef\\n' | sfdisk -q nvme0n1.img\n"
	"mkfs.vfat -n WINESP --offset=2048 nvme0n1.img 20480 >/dev/null 2>&1\n";

static void sysfs_disk(const char *root, const char *base, const char *size)
{
	char *rel = vw_xasprintf("%s/size", base);

	tu_write(root, rel, size);
	free(rel);
}

static void sysfs_part(const char *root, const char *base, const char *name, const char *no,
		       const char *start, const char *size)
{
	char *rel;

	rel = vw_xasprintf("%s/%s/partition", base, name);
	tu_write(root, rel, no);
	free(rel);
	rel = vw_xasprintf("%s/%s/start", base, name);
	tu_write(root, rel, start);
	free(rel);
	rel = vw_xasprintf("%s/%s/size", base, name);
	tu_write(root, rel, size);
	free(rel);
}

/* Returns the root, or NULL when the tools are missing (skip). */
static char *make_host(void)
{
	char *root = tu_mkroot(), *dir, *cmd;
	const char *sda = "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda";
	int rc;

	tu_mkdir(root, ".vfiowiz/blockdevs");
	dir = vw_xasprintf("%s/.vfiowiz/blockdevs", root);
	tu_write(root, "mkdisks.sh", mkdisks);
	cmd = vw_xasprintf("sh '%s/mkdisks.sh' '%s' 2>&1", root, dir);
	rc = system(cmd);
	free(cmd);
	free(dir);
	if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
		tu_rmtree(root);
		free(root);
		if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77)
			return NULL;
		fail_msg("making the disk images failed (status %d)", rc);
	}

	/* sda: in sysfs behind its SATA controller, partitions listed. */
	sysfs_disk(root, sda, "131072\n");
	tu_write(root, "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/model",
		 "Samsung SSD 860\n");
	tu_symlink(root, "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda/device",
		   "../../../0:0:0:0");
	sysfs_part(root, sda, "sda1", "1\n", "2048\n", "32768\n");
	sysfs_part(root, sda, "sda2", "2\n", "34816\n", "81920\n");
	tu_symlink(root, "sys/block/sda",
		   "../devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda");
	/* sdd1 is held by dm-0 (vg-home), mounted at /home. */
	sysfs_disk(root, "sys/block/sdd", "32768\n");
	sysfs_part(root, "sys/block/sdd", "sdd1", "1\n", "2048\n", "30720\n");
	tu_mkdir(root, "sys/block/sdd/sdd1/holders/dm-0");
	tu_write(root, "sys/block/dm-0/size", "30720\n");
	tu_write(root, "sys/block/dm-0/dm/name", "vg-home\n");
	tu_mkdir(root, "sys/block/dm-0/slaves/sdd1");
	/* sdf: known to sysfs only; the host has a ZFS pool mounted. */
	sysfs_disk(root, "sys/block/sdf", "2097152\n");
	/* Never offered. */
	tu_write(root, "sys/block/loop0/size", "2048\n");
	tu_write(root, "sys/block/sr0/size", "0\n");

	tu_write(root, "proc/self/mounts",
		 "sysfs /sys sysfs rw,nosuid 0 0\n"
		 "/dev/sda2 / ext4 rw,relatime 0 0\n"
		 "/dev/sda1 /boot/efi vfat rw 0 0\n"
		 "/dev/mapper/vg-home /home ext4 rw 0 0\n"
		 "rpool/data /rpool/data zfs rw 0 0\n"
		 "tmpfs /run tmpfs rw 0 0\n");
	tu_write(root, "proc/swaps",
		 "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
		 "/dev/sde1                               partition\t1048572\t\t0\t\t-2\n");
	tu_write(root, "etc/fstab",
		 "# /etc/fstab\n"
		 "UUID=" ROOT_UUID " / ext4 errors=remount-ro 0 1\n"
		 "UUID=" SRV_UUID " /srv ext4 defaults 0 2\n");
	tu_symlink(root, "dev/disk/by-id/ata-Samsung_SSD_860_EVO_S3Z9", "../../sda");
	tu_symlink(root, "dev/disk/by-id/wwn-0x5000c500a1b2c3d4", "../../sdb");
	tu_symlink(root, "dev/disk/by-id/ata-WDC_WD10_XYZ", "../../sdb");
	tu_symlink(root, "dev/disk/by-id/ata-WDC_WD10_XYZ-part1", "../../sdb1");
	tu_symlink(root, "dev/disk/by-id/nvme-eui.0025385b91b12345", "../../nvme0n1");
	tu_symlink(root, "dev/disk/by-id/nvme-Samsung_SSD_970_EVO_S4EW", "../../nvme0n1");
	return root;
}

static const struct vw_blk_disk *disk(const struct vw_storage *s, const char *name)
{
	const struct vw_blk_disk *d = vw_storage_find(s, name);

	assert_non_null(d);
	return d;
}

static void test_list(void **state)
{
	char *root = make_host();
	struct vw_sysroot *sr = NULL;
	struct vw_storage s;
	struct vw_err err = { 0 };
	const struct vw_blk_disk *d;
	char **ctl;

	(void)state;
	if (!root)
		skip();
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	assert_int_equal(vw_storage_list(sr, &s, &err), 0);
	/* loop0 and the empty sr0 are not disks for a VM. */
	assert_int_equal(s.ndisks, 7);
	assert_string_equal(s.disks[0].name, "nvme0n1");
	assert_null(vw_storage_find(&s, "loop0"));

	d = disk(&s, "sda");
	assert_true(d->content_known);
	assert_string_equal(d->pttype, "gpt");
	assert_int_equal(d->nparts, 2);
	assert_string_equal(d->parts[0].fstype, "vfat");
	assert_string_equal(d->parts[0].label, "ESP");
	assert_true(d->parts[0].esp);
	assert_string_equal(d->parts[0].partlabel, "esp");
	assert_string_equal(d->parts[1].fstype, "ext4");
	assert_string_equal(d->parts[1].uuid, ROOT_UUID);
	assert_int_equal(d->parts[1].start, 34816ull * 512);
	assert_int_equal(d->size, 64ull << 20);
	assert_string_equal(d->model, "Samsung SSD 860");
	assert_string_equal(d->pci, "0000:00:17.0");
	assert_string_equal(d->by_id, "/dev/disk/by-id/ata-Samsung_SSD_860_EVO_S3Z9");
	assert_false(d->usable);
	assert_non_null(strstr(d->refusal, "sda2 holds the root filesystem"));
	assert_non_null(strstr(d->refusal, "sda1 holds the EFI system partition (/boot/efi)"));

	d = disk(&s, "sdb");
	assert_true(d->usable);
	assert_string_equal(d->refusal, "");
	assert_string_equal(d->warning, "");
	assert_string_equal(d->by_id, "/dev/disk/by-id/ata-WDC_WD10_XYZ");
	assert_int_equal(d->nparts, 1);
	assert_string_equal(d->parts[0].name, "sdb1");
	assert_string_equal(d->parts[0].dev, "/dev/sdb1");
	assert_string_equal(d->parts[0].label, "data");
	assert_string_equal(d->parts[0].use, "");

	d = disk(&s, "sdc");
	assert_string_equal(d->pttype, "");
	assert_string_equal(d->fstype, "ext4");
	assert_string_equal(d->label, "srv");
	assert_false(d->usable);
	assert_non_null(strstr(d->refusal, "/etc/fstab for /srv"));

	d = disk(&s, "sdd");
	assert_false(d->usable);
	assert_non_null(strstr(d->refusal, "sdd1 mounted at /home"));

	d = disk(&s, "sde");
	assert_false(d->usable);
	assert_non_null(strstr(d->refusal, "active swap"));

	d = disk(&s, "sdf");
	assert_false(d->content_known);
	assert_false(d->usable);
	assert_non_null(strstr(d->refusal, "ZFS"));

	d = disk(&s, "/dev/disk/by-id/nvme-Samsung_SSD_970_EVO_S4EW");
	assert_string_equal(d->name, "nvme0n1");
	assert_true(d->usable);
	assert_string_equal(d->pttype, "dos");
	assert_string_equal(d->parts[0].name, "nvme0n1p1");
	assert_string_equal(d->parts[0].parttype, "0xef");
	assert_true(d->parts[0].esp);
	assert_non_null(strstr(d->warning, "EFI system partition"));

	ctl = vw_storage_host_controllers(&s);
	assert_string_equal(ctl[0], "0000:00:17.0");
	assert_null(ctl[1]);
	vw_strv_free(ctl);

	assert_int_equal(vw_storage_check_disk(&s, "/dev/disk/by-id/ata-WDC_WD10_XYZ", &d, &err), 0);
	assert_string_equal(d->name, "sdb");
	assert_int_equal(vw_storage_check_disk(&s, "/dev/sda", &d, &err), -EBUSY);
	assert_null(d);
	assert_non_null(strstr(err.msg, "root filesystem"));
	assert_int_equal(vw_storage_check_disk(&s, "/dev/sdb1", &d, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "/dev/sdb"));
	assert_int_equal(vw_storage_check_disk(&s, "/dev/sdz", &d, &err), -ENOENT);
	vw_storage_done(&s);
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
}

/* No mount table, garbage images: notes, no crash. */
static void test_odd_host(void **state)
{
	char *root = tu_mkroot();
	struct vw_sysroot *sr = NULL;
	struct vw_storage s;
	struct vw_err err = { 0 };
	char junk[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 7 + (i >> 3));
	tu_write_bytes(root, ".vfiowiz/blockdevs/vda.img", junk, sizeof(junk));
	tu_write(root, ".vfiowiz/blockdevs/notes.txt", "not an image\n");
	tu_mkdir(root, ".vfiowiz/blockdevs/vdb.img");	/* a directory */
	tu_write(root, "sys/block/vdc/size", "garbage\n");
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	assert_int_equal(vw_storage_list(sr, &s, &err), 0);
	assert_true(s.nnotes >= 1);			/* no mount table */
	assert_non_null(vw_storage_find(&s, "vda"));
	assert_int_equal(vw_storage_find(&s, "vda")->size, sizeof(junk));
	assert_non_null(vw_storage_find(&s, "vdb"));	/* listed, contents unknown */
	assert_false(vw_storage_find(&s, "vdb")->content_known);
	assert_non_null(vw_storage_find(&s, "vdc"));
	vw_storage_done(&s);
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);

	/* Nothing at all. */
	root = tu_mkroot();
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);
	assert_true(vw_storage_list(sr, &s, &err) < 0);
	vw_storage_done(&s);
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
}

static void test_images(void **state)
{
	char *root = tu_mkroot();
	struct vw_sysroot *sr = NULL;
	struct vw_image_info info;
	struct vw_err err = { 0 };
	unsigned char qcow[512] = { 'Q', 'F', 'I', 0xfb, 0, 0, 0, 3 };
	char *cmd, **argv = NULL, buf[16];

	(void)state;
	qcow[24 + 3] = 0x10;	/* virtual size 0x10 << 32 = 64 GiB */
	tu_write_bytes(root, "var/lib/libvirt/images/win.qcow2", qcow, sizeof(qcow));
	tu_write(root, "var/lib/libvirt/images/disk.raw", "raw bytes\n");
	tu_mkdir(root, "var/lib/libvirt/images/dir.img");
	assert_int_equal(vw_sysroot_open(&sr, root, &err), 0);

	assert_int_equal(vw_storage_check_image(sr, "/var/lib/libvirt/images/win.qcow2", &info, &err), 0);
	assert_true(info.exists);
	assert_string_equal(info.format, "qcow2");
	assert_int_equal(info.virtual_size, 64ull << 30);
	assert_int_equal(info.file_size, 512);
	assert_true(info.avail > 0);
	assert_int_equal(vw_storage_check_image(sr, "/var/lib/libvirt/images/disk.raw", &info, &err), 0);
	assert_string_equal(info.format, "raw");
	assert_int_equal(info.virtual_size, 10);
	assert_int_equal(vw_storage_check_image(sr, "/var/lib/libvirt/images/dir.img", &info, &err), -EINVAL);
	assert_int_equal(vw_storage_check_image(sr, "/var/lib/libvirt/images/none", &info, &err), -ENOENT);
	assert_int_equal(vw_storage_check_image(sr, "relative.qcow2", &info, &err), -EINVAL);

	assert_int_equal(vw_storage_check_new_image(sr, "/var/lib/libvirt/images/gpu-vm.qcow2",
						    64ull << 30, &info, &err), 0);
	assert_string_equal(info.format, "qcow2");
	assert_true(info.avail > 0);
	assert_int_equal(vw_storage_check_new_image(sr, "/var/lib/libvirt/images/win.qcow2",
						    64ull << 30, &info, &err), -EEXIST);
	assert_int_equal(vw_storage_check_new_image(sr, "/nowhere/x.qcow2", 64ull << 30, &info, &err), -ENOENT);
	assert_int_equal(vw_storage_check_new_image(sr, "/var/lib/libvirt/images/t.qcow2", 4096, &info, &err), -EINVAL);
	assert_int_equal(vw_storage_check_new_image(sr, "/var/lib/libvirt/images/", 64ull << 30, &info, &err), -EINVAL);

	cmd = vw_storage_qcow2_cmd("/var/lib/libvirt/images/gpu-vm.qcow2", 64ull << 30);
	assert_string_equal(cmd, "qemu-img create -f qcow2 /var/lib/libvirt/images/gpu-vm.qcow2 64G");
	free(cmd);
	/* A name with a blank and a quote survives the plan's splitting. */
	cmd = vw_storage_qcow2_cmd("/srv/my vm's.qcow2", 1536ull << 20);
	assert_int_equal(vw_exec_split(cmd, &argv, &err), 6);
	assert_string_equal(argv[4], "/srv/my vm's.qcow2");
	assert_string_equal(argv[5], "1572864K");
	vw_strv_free(argv);
	free(cmd);

	assert_string_equal(vw_storage_human_size(1536, buf, sizeof(buf)), "1.5 KiB");
	assert_string_equal(vw_storage_human_size(64ull << 30, buf, sizeof(buf)), "64 GiB");
	assert_string_equal(vw_storage_human_size(1000204886016ull, buf, sizeof(buf)), "932 GiB");
	assert_string_equal(vw_storage_human_size(12, buf, sizeof(buf)), "12 B");
	vw_sysroot_free(sr);
	tu_rmtree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_odd_host),
		cmocka_unit_test(test_images),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
