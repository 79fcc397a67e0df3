/* SPDX-License-Identifier: GPL-2.0-or-later */
/* storage.h - the VM's disk: a whole disk chosen with libblkid, an existing
 * image, or a new qcow2 (docs/design.md, the VM step).
 *
 * Disks are listed from sys/block; their partitions, filesystem types,
 * labels and UUIDs are read with libblkid.  A disk is refused when the host
 * needs it: a mounted filesystem on it (the root, /boot, the ESP or any
 * other), active swap, a partition in use by device mapper or md (LVM, RAID,
 * LUKS: its holders/ directory is not empty), a member of a mounted ZFS pool
 * or btrfs filesystem, or an entry of the host's /etc/fstab.  Each disk gets
 * a stable path under /dev/disk/by-id/ when one exists.
 *
 * Under a sysroot every path is read inside it: sys/block, sys/class/block,
 * proc/self/mounts (or proc/mounts), proc/swaps, etc/fstab, dev/disk/by-id,
 * dev/mapper.  Device contents come from stand-in image files:
 *	.vfiowiz/blockdevs/<name>.img	the bytes of /dev/<name> (a whole disk)
 * A stand-in with no sys/block entry is listed too (size = file size,
 * partitions from its partition table), so a test or a snapshot can describe
 * a disk with the image alone.  On the live host /dev/<name> is read, which
 * needs root; without it the contents stay unknown and the refusals rest on
 * sysfs and the mount tables.
 *
 * Everything returned is plain data owned by the struct; strings are "" when
 * unknown, never NULL; messages are translated.
 */
#ifndef VW_STORAGE_H
#define VW_STORAGE_H

#include <stdint.h>

#include "sysroot.h"
#include "vw.h"

#define VW_BLOCKDEV_DIR ".vfiowiz/blockdevs"

struct vw_blk_part {
	char *name;		/* "sda1", "nvme0n1p2" */
	char *dev;		/* "/dev/sda1" */
	int partno;		/* 1, 2, ... (0 unknown) */
	uint64_t start, size;	/* bytes */
	char *fstype;		/* "ext4", "vfat", "swap", "LVM2_member", "" none/unknown */
	char *label, *uuid;	/* of the filesystem */
	char *partuuid, *partlabel;	/* of the partition table entry */
	char *parttype;		/* GPT type GUID, or MBR type "0xef" */
	bool esp;		/* an EFI system partition */
	char *use;		/* what the host uses it for (translated), "" free */
};

struct vw_blk_disk {
	char *name;		/* "sda", "nvme0n1" */
	char *dev;		/* "/dev/sda" */
	char *by_id;		/* "/dev/disk/by-id/ata-...", "" when none */
	char *model, *serial;	/* from sysfs, "" unknown */
	char *pci;		/* PCI address of its controller, "" unknown */
	uint64_t size;		/* bytes */
	bool removable, readonly, rotational;
	bool content_known;	/* libblkid read the device (or its stand-in) */
	char *pttype;		/* "gpt", "dos", "" none/unknown */
	char *ptuuid;
	char *fstype, *label, *uuid;	/* a filesystem (or member) on the whole disk */
	struct vw_blk_part *parts;
	size_t nparts;
	bool usable;		/* may be given to a VM */
	char *refusal;		/* why not (translated, reasons joined by "; "), "" when usable */
	char *warning;		/* worth saying although usable ("" none) */
	char *holds;		/* what the host has on it, short, ", "-separated:
				   mount points, "swap", holders ("md0", "dm-0");
				   "" when usable */
};

struct vw_storage {
	struct vw_blk_disk *disks;	/* sorted by name */
	size_t ndisks;
	char **notes;		/* translated: what could not be read */
	size_t nnotes;
};

/* List the disks of the host under sr into *out (zeroed first; free with
 * vw_storage_done() in every case).  Unreadable pieces become notes; returns
 * 0, or a negative code only when sys/block and the stand-ins both cannot be
 * listed (err set). */
int vw_storage_list(const struct vw_sysroot *sr, struct vw_storage *out, struct vw_err *err);
void vw_storage_done(struct vw_storage *s);

/* The disk a user-given path names: "sdb", "/dev/sdb", a /dev/disk/by-id
 * path of the disk.  NULL when unknown. */
const struct vw_blk_disk *vw_storage_find(const struct vw_storage *s, const char *path);

/* Check a whole disk for a VM: returns 0 and sets *disk when it is usable,
 * -ENOENT when it is not a disk of this host (a partition is refused too,
 * -EINVAL), -EBUSY when the host needs it; err says why. */
int vw_storage_check_disk(const struct vw_storage *s, const char *path,
			  const struct vw_blk_disk **disk, struct vw_err *err);

/* PCI addresses of the controllers of disks the host uses (refused ones),
 * each once, NULL-terminated; caller frees with vw_strv_free().  For
 * vw_unit_opts.host_storage. */
char **vw_storage_host_controllers(const struct vw_storage *s);

/* Disk images. */
struct vw_image_info {
	bool exists;
	char format[8];		/* "qcow2", "raw", "vmdk", "vdi", "vhdx", "" unknown */
	uint64_t file_size;	/* bytes on disk (apparent size) */
	uint64_t virtual_size;	/* the guest's disk size (qcow2 header; raw: file size) */
	uint64_t avail;		/* free bytes on the image's filesystem, 0 unknown */
};

/* An existing image for the VM: path is absolute on the host (read under
 * sr).  Returns 0 with *info filled when it is a readable regular file,
 * else -ENOENT / -EINVAL (not a regular file, relative path) / -EACCES with
 * err set. */
int vw_storage_check_image(const struct vw_sysroot *sr, const char *path,
			   struct vw_image_info *info, struct vw_err *err);

/* A new qcow2 image of size bytes at path: refused when the path exists
 * (qemu-img create would overwrite it), is relative, its directory is
 * missing, or size is below 1 MiB.  Returns 0 with info->avail filled (the
 * front end warns when size exceeds it: qcow2 grows on demand), else a
 * negative code with err set. */
int vw_storage_check_new_image(const struct vw_sysroot *sr, const char *path, uint64_t size,
			       struct vw_image_info *info, struct vw_err *err);

/* The post-command that creates it, for vw_plan_add_post():
 * "qemu-img create -f qcow2 PATH SIZE" (PATH quoted when needed; SIZE in
 * whole GiB "64G" when it divides, else "NNNK" / bytes).  Caller frees. */
char *vw_storage_qcow2_cmd(const char *path, uint64_t size);

/* "931.5 GiB", "512 MiB": a size for people (caller's buffer, >= 16 bytes). */
const char *vw_storage_human_size(uint64_t bytes, char *buf, size_t len);

#endif
