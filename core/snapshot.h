/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snapshot.h - support snapshots: capture what the wizard reads, redacted,
 * into a sysroot-shaped archive; import one safely to replay it.
 *
 * A snapshot holds, under the layout of the host (docs/formats.md section 14):
 *  - per PCI function, the attributes libpci and the probes read (vendor,
 *    device, class, subsystem ids, revision, numa_node, boot_vga,
 *    reset_method, link speed and width, modalias, resource, config up to
 *    4096 bytes with the Device Serial Number zeroed, ...) in the kernel's
 *    layout: sys/bus/pci/devices/BDF -> ../../../devices/.../BDF, driver and
 *    iommu_group links as the kernel had them;
 *  - IOMMU groups, IOMMU units, ACPI DMAR/IVRS/MCFG, EFI presence and the
 *    LoaderInfo variable, DMI vendor and product, /proc (cpuinfo, cmdline,
 *    version, modules, interrupts, osrelease, mounts, swaps, boot_id), the
 *    kernel config, the boot loader, initramfs, modprobe, driverctl,
 *    Proxmox and libvirt files, VFIO and KVM module parameters;
 *  - disks for the VM storage step: sys/block (links, sizes, partitions,
 *    dm/md stacking, model, serial) and /dev/disk/by-id links; not the
 *    devices' contents (no partition tables or file systems);
 *  - empty files marking the tools the detection looks for;
 *  - the outputs of the commands the wizard runs, as core/exec.h replays
 *    them (.vfiowiz/cmd/<key>, <key>.rc): vw_snapshot_commands();
 *  - the state file and the journal manifests (never the journal's copies
 *    of files, nor its keys);
 *  - .vfiowiz/snapshot: format, tool version, time, redaction counts.
 * Text is redacted (core/redact.h) consistently across files: UUIDs, MACs,
 * IPs, serials, secrets, the host name (etc/hostname,
 * proc/sys/kernel/hostname), user names (home/<name>) and disk serial
 * numbers (also inside by-id link names).  Binary sysfs
 * files are copied as they are, except the serial number in config space.
 *
 * Capture reads through the sysroot, so a snapshot of a snapshot (or of a
 * test fixture) works the same; commands then replay their recordings.
 */
#ifndef VW_SNAPSHOT_H
#define VW_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "sysroot.h"
#include "tarsafe.h"
#include "vw.h"

#define VW_SNAPSHOT_FORMAT 1
#define VW_SNAPSHOT_MAX_FILE ((size_t)4 << 20)	/* larger files are left out */

enum vw_snap_type { VW_SNAP_DIR, VW_SNAP_FILE, VW_SNAP_LINK };

enum vw_snap_area {
	VW_AREA_PCI,		/* sys/bus/pci, sys/devices */
	VW_AREA_SYS,		/* the rest of sys/ */
	VW_AREA_PROC,
	VW_AREA_CONFIG,		/* etc/, boot/, efi/ */
	VW_AREA_MARKER,		/* empty files marking tools */
	VW_AREA_COMMAND,	/* .vfiowiz/cmd */
	VW_AREA_STATE,		/* var/lib/vfiowiz, .vfiowiz/snapshot */
	VW_AREA_NAREAS
};

struct vw_snap_entry {
	char *path;		/* archive name, root-relative */
	enum vw_snap_type type;
	enum vw_snap_area area;
	mode_t mode;
	char *data;		/* file contents (NUL-terminated) or link target */
	size_t len;
	size_t redactions;	/* replacements made in this file */
	size_t seq;		/* private: order of collection */
};

struct vw_snapshot {
	struct vw_snap_entry *v;	/* sorted by path once collected */
	size_t n;
	size_t cap;
	time_t created;
	char *redaction_summary;	/* translated, "" when nothing */
	char **notes;			/* what could not be captured, translated */
	size_t nnotes;
};

struct vw_snapshot_opts {
	bool no_commands;	/* do not run (or replay) any command */
	unsigned cmd_timeout_ms;	/* per command; 0: 20 s */
	time_t now;		/* 0: time(NULL) */
};

/* One command the snapshot records: its argv (NULL-terminated, static). */
struct vw_snap_cmd {
	const char *const *argv;
	const char *what;	/* N_() description */
};

/* The commands recorded, in order; argv with a "%s" word take the kernel
 * release (initramfs listings).  *n gets the count. */
const struct vw_snap_cmd *vw_snapshot_commands(size_t *n);

/* Collect everything from sr (see above) into *snap (free with
 * vw_snapshot_done()).  Unreadable files are left out with a note; only a
 * root that cannot be read at all fails.  On the live host the commands
 * run (no shell, with a timeout); under any other root their recordings are
 * copied. */
int vw_snapshot_collect(const struct vw_sysroot *sr, const struct vw_snapshot_opts *opts,
			struct vw_snapshot *snap, struct vw_err *err);
void vw_snapshot_done(struct vw_snapshot *snap);

/* What the snapshot holds, for the user to read before it is written:
 * full: one line per file ("  4.2 KiB  etc/default/grub  (2 redactions)"),
 * else a summary per area with the configuration files and commands named. */
void vw_snapshot_listing(const struct vw_snapshot *snap, bool full, struct vw_buf *out);
/* Total bytes of file contents. */
size_t vw_snapshot_bytes(const struct vw_snapshot *snap);

/* Write snap as a gzip-compressed tar to path (outside any sysroot: the
 * user's own file), mode 0600: a temporary file in the same directory,
 * fsync, rename.  Refuses when path is a symbolic link or exists and is not
 * a regular file.  Returns 0 or a negative code with err set. */
int vw_snapshot_write(const struct vw_snapshot *snap, const char *path, struct vw_err *err);
/* The same into an open fd (tests, fuzz seeds). */
int vw_snapshot_write_fd(const struct vw_snapshot *snap, int fd, struct vw_err *err);

/* Whether path names a snapshot archive rather than a folder: a regular
 * file (links followed) whose name ends in .tar.gz, .tgz or .tar. */
bool vw_snapshot_is_archive(const char *path);

/* Import an archive into a new private folder (mode 0700, under $TMPDIR or
 * /tmp) with the checks of core/tarsafe.h; lim may be NULL (defaults).
 * On success *dir is its path (caller frees, and removes the folder with
 * vw_snapshot_remove() when done).  On failure nothing is left behind and
 * err names the offending entry.  A SIGINT, SIGTERM or SIGHUP meanwhile
 * (unless ignored) stops the import: the folder is removed, then the signal
 * is raised again with the disposition it had before the call. */
int vw_snapshot_import(const char *archive, const struct vw_tar_limits *lim, char **dir,
		       struct vw_tar_stats *st, struct vw_err *err);
/* Remove a folder made by vw_snapshot_import() (links are not followed). */
int vw_snapshot_remove(const char *dir);

#endif
