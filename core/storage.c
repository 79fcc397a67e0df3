/* SPDX-License-Identifier: GPL-2.0-or-later */
/* storage.c - disks (libblkid), images and the host's claims on them. */
#define _GNU_SOURCE
#include "storage.h"
#include "exec.h"

#include <blkid/blkid.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define ESP_GUID "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
#define MAX_TABLE (1u << 20)	/* mounts, swaps, fstab */
#define MAX_DEPTH 8		/* dm/md stacking */

/* Devices never offered as a VM's whole disk. */
static const char *const skip_prefix[] = {
	"loop", "ram", "zram", "sr", "fd", "nbd", "dm-", "md", "zd", "drbd", "rbd",
};

struct mnt {
	char *src, *dir, *type;
};

struct ctx {
	const struct vw_sysroot *sr;
	struct vw_storage *s;
	struct mnt *m;		/* proc mounts */
	size_t nm;
	const char *tag;	/* short name of the current claim, for holds */
};

static void note(struct vw_storage *s, char *msg)
{
	s->notes = vw_xreallocarray(s->notes, s->nnotes + 1, sizeof(*s->notes));
	s->notes[s->nnotes++] = msg;
}

static char *dup_or_empty(const char *s)
{
	return vw_xstrdup(s ? s : "");
}

/* Append a reason to *dst ("a" + "b" -> "a; b"), once. */
static void add_reason(char **dst, const char *sep, const char *why)
{
	char *old = *dst;

	if (strstr(old, why))
		return;
	*dst = *old ? vw_xasprintf("%s%s%s", old, sep, why) : vw_xstrdup(why);
	free(old);
}

static bool skipped_name(const char *name)
{
	for (size_t i = 0; i < VW_ARRAY_SIZE(skip_prefix); i++)
		if (vw_startswith(name, skip_prefix[i]))
			return true;
	return name[0] == '.' || strchr(name, '/') != NULL;
}

static char *attr(const struct vw_sysroot *sr, const char *fmt, const char *a, const char *b)
{
	char *rel = vw_xasprintf(fmt, a, b);
	char *v = vw_sysroot_read_line(sr, rel);

	free(rel);
	return v ? v : vw_xstrdup("");
}

static long attr_long(const struct vw_sysroot *sr, const char *fmt, const char *a, const char *b)
{
	char *rel = vw_xasprintf(fmt, a, b);
	long v = -1;

	if (vw_sysroot_read_long(sr, rel, &v) < 0)
		v = -1;
	free(rel);
	return v;
}

/* "0000:00:17.0"-shaped path component. */
static bool is_pci_addr(const char *s, size_t n)
{
	return n == 12 && isxdigit((unsigned char)s[0]) && s[4] == ':' && s[7] == ':' && s[10] == '.';
}

/* The last PCI address in the disk's sysfs path: its controller. */
static char *controller(const struct vw_sysroot *sr, const char *name)
{
	char *rel = vw_xasprintf("sys/block/%s", name), *real = vw_sysroot_realpath(sr, rel);
	char *found = NULL;

	free(rel);
	for (char *p = real; p && *p;) {
		size_t n = strcspn(p, "/");

		if (is_pci_addr(p, n)) {
			free(found);
			found = vw_xstrndup(p, n);
		}
		p += n + (p[n] == '/');
	}
	free(real);
	return found ? found : vw_xstrdup("");
}

/* ---- libblkid ----------------------------------------------------------- */

static int open_device(const struct ctx *c, const char *name)
{
	char *rel;
	int fd;
	struct stat st;

	if (vw_sysroot_is_host(c->sr))
		rel = vw_xasprintf("dev/%s", name);
	else
		rel = vw_xasprintf(VW_BLOCKDEV_DIR "/%s.img", name);
	fd = vw_sysroot_openat(c->sr, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
	free(rel);
	if (fd < 0)
		return fd;
	/* A snapshot's stand-ins are plain files; device nodes are read
	 * only on the live host. */
	if (fstat(fd, &st) < 0 || (vw_sysroot_is_host(c->sr) ? !S_ISBLK(st.st_mode) : !S_ISREG(st.st_mode))) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static char *lookup(blkid_probe pr, const char *key)
{
	const char *v = NULL;

	if (blkid_probe_lookup_value(pr, key, &v, NULL) < 0 || !v)
		return vw_xstrdup("");
	return vw_xstrdup(v);
}

/* The filesystem (or member type) at [off, off+size) of fd. */
static void probe_fs(int fd, uint64_t off, uint64_t size, char **type, char **label, char **uuid)
{
	blkid_probe pr = blkid_new_probe();

	*type = *label = *uuid = NULL;
	if (pr && blkid_probe_set_device(pr, fd, (blkid_loff_t)off, (blkid_loff_t)size) == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE);
		blkid_probe_enable_partitions(pr, 0);
		if (blkid_do_safeprobe(pr) == 0) {
			*type = lookup(pr, "TYPE");
			*label = lookup(pr, "LABEL");
			*uuid = lookup(pr, "UUID");
		}
	}
	if (pr)
		blkid_free_probe(pr);
	if (!*type) {
		*type = vw_xstrdup("");
		*label = vw_xstrdup("");
		*uuid = vw_xstrdup("");
	}
}

static struct vw_blk_part *part_by_no(struct vw_blk_disk *d, int no)
{
	for (size_t i = 0; i < d->nparts; i++)
		if (d->parts[i].partno == no)
			return &d->parts[i];
	return NULL;
}

static struct vw_blk_part *new_part(struct vw_blk_disk *d)
{
	struct vw_blk_part *p;

	d->parts = vw_xreallocarray(d->parts, d->nparts + 1, sizeof(*d->parts));
	p = &d->parts[d->nparts++];
	memset(p, 0, sizeof(*p));
	return p;
}

static void part_defaults(struct vw_blk_part *p)
{
	char **f[] = { &p->name, &p->dev, &p->fstype, &p->label, &p->uuid, &p->partuuid,
		       &p->partlabel, &p->parttype, &p->use };

	for (size_t i = 0; i < VW_ARRAY_SIZE(f); i++)
		if (!*f[i])
			*f[i] = vw_xstrdup("");
}

static char *part_name(const char *disk, int no)
{
	size_t n = strlen(disk);

	return vw_xasprintf("%s%s%d", disk, n && isdigit((unsigned char)disk[n - 1]) ? "p" : "", no);
}

/* Read the disk's contents: partition table, whole-disk filesystem, then
 * each partition's filesystem. */
static void read_content(struct ctx *c, struct vw_blk_disk *d)
{
	int fd = open_device(c, d->name);
	blkid_probe pr;
	blkid_partlist pl;

	if (fd < 0) {
		if (vw_sysroot_is_host(c->sr) && fd == -EACCES)
			note(c->s, vw_xasprintf(_("%s: cannot read it (run as root to see its partitions and filesystems)"), d->dev));
		return;
	}
	if (!d->size) {
		struct stat st;

		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			d->size = (uint64_t)st.st_size;
	}
	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0) < 0) {
		if (pr)
			blkid_free_probe(pr);
		close(fd);
		return;
	}
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE);
	d->content_known = true;
	if (blkid_do_safeprobe(pr) == 0) {
		free(d->pttype);
		free(d->ptuuid);
		free(d->fstype);
		free(d->label);
		free(d->uuid);
		d->pttype = lookup(pr, "PTTYPE");
		d->ptuuid = lookup(pr, "PTUUID");
		d->fstype = lookup(pr, "TYPE");
		d->label = lookup(pr, "LABEL");
		d->uuid = lookup(pr, "UUID");
	}
	pl = *d->pttype ? blkid_probe_get_partitions(pr) : NULL;
	for (int i = 0; pl && i < blkid_partlist_numof_partitions(pl) && i < 256; i++) {
		blkid_partition bp = blkid_partlist_get_partition(pl, i);
		int no = blkid_partition_get_partno(bp);
		struct vw_blk_part *p = part_by_no(d, no);
		const char *ts = blkid_partition_get_type_string(bp);
		blkid_loff_t start = blkid_partition_get_start(bp), size = blkid_partition_get_size(bp);

		if (start < 0 || size <= 0)
			continue;
		if (!p) {
			p = new_part(d);
			p->partno = no;
			p->name = part_name(d->name, no);
			p->dev = vw_xasprintf("/dev/%s", p->name);
		}
		p->start = (uint64_t)start * 512;
		p->size = (uint64_t)size * 512;
		free(p->partuuid);
		free(p->partlabel);
		free(p->parttype);
		p->partuuid = dup_or_empty(blkid_partition_get_uuid(bp));
		p->partlabel = dup_or_empty(blkid_partition_get_name(bp));
		p->parttype = ts ? vw_xstrdup(ts) : vw_xasprintf("0x%02x", blkid_partition_get_type(bp));
		for (char *q = p->parttype; *q; q++)
			*q = (char)tolower((unsigned char)*q);
		p->esp = !strcmp(p->parttype, ESP_GUID) || !strcmp(p->parttype, "0xef");
		free(p->fstype);
		free(p->label);
		free(p->uuid);
		probe_fs(fd, p->start, p->size, &p->fstype, &p->label, &p->uuid);
	}
	blkid_free_probe(pr);
	close(fd);
}

/* ---- sysfs ---------------------------------------------------------------- */

static void read_sysfs_parts(struct ctx *c, struct vw_blk_disk *d)
{
	char *rel = vw_xasprintf("sys/block/%s", d->name), **names = NULL;
	int n = vw_sysroot_list(c->sr, rel, &names);

	for (int i = 0; i < n; i++) {
		long no, start, size;
		struct vw_blk_part *p;

		if (!vw_startswith(names[i], d->name) || strchr(names[i], '/'))
			continue;
		no = attr_long(c->sr, "sys/block/%s/%s/partition", d->name, names[i]);
		if (no <= 0 || no > 4096)
			continue;
		start = attr_long(c->sr, "sys/block/%s/%s/start", d->name, names[i]);
		size = attr_long(c->sr, "sys/block/%s/%s/size", d->name, names[i]);
		p = new_part(d);
		p->partno = (int)no;
		p->name = vw_xstrdup(names[i]);
		p->dev = vw_xasprintf("/dev/%s", names[i]);
		p->start = start > 0 ? (uint64_t)start * 512 : 0;
		p->size = size > 0 ? (uint64_t)size * 512 : 0;
	}
	vw_strv_free(names);
	free(rel);
}

static void new_disk(struct ctx *c, const char *name, bool sysfs)
{
	struct vw_storage *s = c->s;
	struct vw_blk_disk *d;
	long v;

	s->disks = vw_xreallocarray(s->disks, s->ndisks + 1, sizeof(*s->disks));
	d = &s->disks[s->ndisks++];
	memset(d, 0, sizeof(*d));
	d->name = vw_xstrdup(name);
	d->dev = vw_xasprintf("/dev/%s", name);
	if (sysfs) {
		v = attr_long(c->sr, "sys/block/%s/size%s", name, "");
		d->size = v > 0 ? (uint64_t)v * 512 : 0;
		d->removable = attr_long(c->sr, "sys/block/%s/removable%s", name, "") == 1;
		d->readonly = attr_long(c->sr, "sys/block/%s/ro%s", name, "") == 1;
		d->rotational = attr_long(c->sr, "sys/block/%s/queue/rotational%s", name, "") == 1;
		d->model = attr(c->sr, "sys/block/%s/device/model%s", name, "");
		d->serial = attr(c->sr, "sys/block/%s/device/serial%s", name, "");
		d->pci = controller(c->sr, name);
		read_sysfs_parts(c, d);
	} else {
		d->model = vw_xstrdup("");
		d->serial = vw_xstrdup("");
		d->pci = vw_xstrdup("");
	}
	d->pttype = vw_xstrdup("");
	d->ptuuid = vw_xstrdup("");
	d->fstype = vw_xstrdup("");
	d->label = vw_xstrdup("");
	d->uuid = vw_xstrdup("");
	d->by_id = vw_xstrdup("");
	d->refusal = vw_xstrdup("");
	d->warning = vw_xstrdup("");
	d->holds = vw_xstrdup("");
	read_content(c, d);
	for (size_t i = 0; i < d->nparts; i++)
		part_defaults(&d->parts[i]);
}

/* ---- what the host holds ------------------------------------------------ */

/* Decode the octal escapes of /proc/mounts ("\040" for a blank), in place. */
static void unoctal(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* Lines of a table file as words (blank-separated, '#' comments dropped):
 * calls fn for each line with at least min words. */
static void read_table(const struct ctx *c, const char *rel, size_t min,
		       void (*fn)(struct ctx *, char **, size_t), struct ctx *arg)
{
	char *buf = NULL, *save = NULL;

	if (vw_sysroot_read(c->sr, rel, &buf, NULL, MAX_TABLE, NULL) < 0)
		return;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *w[8], *s2 = NULL;
		size_t n = 0;

		line = vw_strtrim(line);
		if (*line == '#')
			continue;
		for (char *t = strtok_r(line, " \t", &s2); t && n < VW_ARRAY_SIZE(w); t = strtok_r(NULL, " \t", &s2))
			w[n++] = t;
		if (n >= min)
			fn(arg, w, n);
	}
	free(buf);
}

static void add_mount(struct ctx *c, char **w, size_t n)
{
	struct mnt *m;

	(void)n;
	c->m = vw_xreallocarray(c->m, c->nm + 1, sizeof(*c->m));
	m = &c->m[c->nm++];
	unoctal(w[0]);
	unoctal(w[1]);
	m->src = vw_xstrdup(w[0]);
	m->dir = vw_xstrdup(w[1]);
	m->type = vw_xstrdup(w[2]);
}

/* Block device name of a /dev path: links resolved inside the root, device
 * mapper names looked up in sys/block/dm-N/dm/name. */
static char *dev_name(const struct ctx *c, const char *path)
{
	char *real, *base;

	if (!vw_startswith(path, "/dev/"))
		return NULL;
	real = vw_sysroot_realpath(c->sr, path + 1);
	if (real && vw_startswith(real, "dev/") && !strchr(real + 4, '/')) {
		base = vw_xstrdup(real + 4);
		free(real);
		return base;
	}
	free(real);
	if (vw_startswith(path, "/dev/mapper/")) {
		char **names = NULL;
		int n = vw_sysroot_list(c->sr, "sys/block", &names);

		for (int i = 0; i < n; i++) {
			char *dm;

			if (!vw_startswith(names[i], "dm-"))
				continue;
			dm = attr(c->sr, "sys/block/%s/dm/name%s", names[i], "");
			if (!strcmp(dm, path + 12)) {
				free(dm);
				base = vw_xstrdup(names[i]);
				vw_strv_free(names);
				return base;
			}
			free(dm);
		}
		vw_strv_free(names);
		return NULL;
	}
	base = strrchr(path, '/') + 1;
	return *base ? vw_xstrdup(base) : NULL;
}

/* The disk or partition called name, among those listed. */
static bool find_name(struct vw_storage *s, const char *name, struct vw_blk_disk **d,
		      struct vw_blk_part **p)
{
	for (size_t i = 0; i < s->ndisks; i++) {
		if (!strcmp(s->disks[i].name, name)) {
			*d = &s->disks[i];
			*p = NULL;
			return true;
		}
		for (size_t k = 0; k < s->disks[i].nparts; k++)
			if (!strcmp(s->disks[i].parts[k].name, name)) {
				*d = &s->disks[i];
				*p = &s->disks[i].parts[k];
				return true;
			}
	}
	return false;
}

/* Append tag to the ", "-separated list *dst unless it is already there. */
static void add_tag(char **dst, const char *tag)
{
	size_t n = strlen(tag);
	char *old = *dst;

	if (!*tag)
		return;
	for (const char *q = old; (q = strstr(q, tag)); q++)
		if ((q == old || q[-1] == ' ') && (q[n] == ',' || !q[n]))
			return;
	*dst = *old ? vw_xasprintf("%s, %s", old, tag) : vw_xstrdup(tag);
	free(old);
}

static void mark(const struct ctx *c, struct vw_blk_disk *d, struct vw_blk_part *p, const char *why)
{
	add_reason(p ? &p->use : &d->refusal, p ? ", " : "; ", why);
	add_tag(&d->holds, c->tag ? c->tag : "");
}

/* Mark name and, through slaves/ (dm, md), everything under it. */
static void claim(struct ctx *c, const char *name, const char *why, int depth)
{
	char *rel, **slaves = NULL;
	int n;
	struct vw_blk_disk *d;
	struct vw_blk_part *p;

	if (depth > MAX_DEPTH || strchr(name, '/') || !*name)
		return;
	if (find_name(c->s, name, &d, &p)) {
		mark(c, d, p, why);
		return;
	}
	rel = vw_xasprintf("sys/block/%s/slaves", name);
	n = vw_sysroot_list(c->sr, rel, &slaves);
	for (int i = 0; i < n; i++)
		claim(c, slaves[i], why, depth + 1);
	vw_strv_free(slaves);
	free(rel);
}

static char *mount_reason(const char *dir)
{
	if (!strcmp(dir, "/"))
		return vw_xstrdup(_("holds the root filesystem"));
	if (!strcmp(dir, "/boot"))
		return vw_xstrdup(_("holds /boot"));
	if (!strcmp(dir, "/boot/efi") || !strcmp(dir, "/efi"))
		return vw_xasprintf(_("holds the EFI system partition (%s)"), dir);
	return vw_xasprintf(_("mounted at %s"), dir);
}

/* Partitions and disks whose filesystem matches (type, uuid or label). */
static void claim_matching(struct ctx *c, const char *type, const char *uuid, const char *label,
			   const char *why)
{
	struct vw_storage *s = c->s;

	for (size_t i = 0; i < s->ndisks; i++) {
		struct vw_blk_disk *d = &s->disks[i];

		for (size_t k = 0; k < d->nparts; k++) {
			struct vw_blk_part *p = &d->parts[k];

			if (type && strcmp(p->fstype, type))
				continue;
			if ((uuid && *uuid && !strcmp(p->uuid, uuid)) || (label && *label && !strcmp(p->label, label)))
				mark(c, d, p, why);
		}
		if ((!type || !strcmp(d->fstype, type)) &&
		    ((uuid && *uuid && !strcmp(d->uuid, uuid)) || (label && *label && !strcmp(d->label, label))))
			mark(c, d, NULL, why);
	}
}

static const char *fs_uuid_of(struct ctx *c, const char *name, const char **type)
{
	struct vw_blk_disk *d;
	struct vw_blk_part *p;

	if (!find_name(c->s, name, &d, &p))
		return NULL;
	*type = p ? p->fstype : d->fstype;
	return p ? p->uuid : d->uuid;
}

static void claim_mounts(struct ctx *c)
{
	bool zfs_unknown = false;
	char *zpool = NULL;	/* the pool of "/", else the first one mounted */

	for (size_t i = 0; i < c->nm; i++) {
		struct mnt *m = &c->m[i];
		char *why = mount_reason(m->dir), *name;

		c->tag = m->dir;
		if (!strcmp(m->type, "zfs")) {
			char *pool = vw_xstrndup(m->src, strcspn(m->src, "/"));
			char *zwhy = vw_xasprintf(_("member of the ZFS pool %s, mounted at %s"), pool, m->dir);

			claim_matching(c, "zfs_member", NULL, pool, zwhy);
			zfs_unknown = true;
			if (!zpool || !strcmp(m->dir, "/")) {
				free(zpool);
				zpool = vw_xstrdup(pool);
			}
			free(zwhy);
			free(pool);
		} else if ((name = dev_name(c, m->src))) {
			const char *type = NULL, *uuid = fs_uuid_of(c, name, &type);

			claim(c, name, why, 0);
			/* The other devices of a multi-device btrfs. */
			if (uuid && *uuid && type && !strcmp(type, "btrfs"))
				claim_matching(c, "btrfs", uuid, NULL, why);
			free(name);
		}
		free(why);
	}
	/* Without a disk's contents, ZFS membership cannot be told. */
	{
		char *tag = zpool ? vw_xasprintf(_("perhaps the ZFS pool %s"), zpool) : NULL;

		c->tag = tag;
		for (size_t i = 0; zfs_unknown && i < c->s->ndisks; i++)
			if (!c->s->disks[i].content_known)
				mark(c, &c->s->disks[i], NULL,
				     _("its contents could not be read, so it may belong to a mounted ZFS pool (run as root)"));
		c->tag = NULL;
		free(tag);
		free(zpool);
	}
}

static void add_swap(struct ctx *c, char **w, size_t n)
{
	char *name;

	(void)n;
	if (!strcmp(w[0], "Filename"))
		return;
	unoctal(w[0]);
	name = dev_name(c, w[0]);
	c->tag = _("swap");
	if (name)
		claim(c, name, _("active swap"), 0);
	free(name);
}

static void add_fstab(struct ctx *c, char **w, size_t n)
{
	const char *spec = w[0], *dir = w[1];
	char *why;

	(void)n;
	why = strcmp(w[2], "swap") ? vw_xasprintf(_("listed in the host's /etc/fstab for %s"), dir)
				   : vw_xstrdup(_("listed in the host's /etc/fstab as swap"));
	c->tag = strcmp(w[2], "swap") ? dir : _("swap");
	if (vw_startswith(spec, "UUID=")) {
		claim_matching(c, NULL, spec + 5, NULL, why);
	} else if (vw_startswith(spec, "LABEL=")) {
		claim_matching(c, NULL, NULL, spec + 6, why);
	} else if (vw_startswith(spec, "PARTUUID=") || vw_startswith(spec, "PARTLABEL=")) {
		bool uuid = spec[4] == 'U';
		const char *v = strchr(spec, '=') + 1;

		for (size_t i = 0; i < c->s->ndisks; i++)
			for (size_t k = 0; k < c->s->disks[i].nparts; k++) {
				struct vw_blk_part *p = &c->s->disks[i].parts[k];

				if (!strcasecmp(uuid ? p->partuuid : p->partlabel, v))
					mark(c, &c->s->disks[i], p, why);
			}
	} else {
		char *name = dev_name(c, spec);

		if (name)
			claim(c, name, why, 0);
		free(name);
	}
	free(why);
}

static void claim_holders(struct ctx *c)
{
	for (size_t i = 0; i < c->s->ndisks; i++) {
		struct vw_blk_disk *d = &c->s->disks[i];

		for (size_t k = 0; k <= d->nparts; k++) {
			struct vw_blk_part *p = k < d->nparts ? &d->parts[k] : NULL;
			char *rel = p ? vw_xasprintf("sys/block/%s/%s/holders", d->name, p->name)
				      : vw_xasprintf("sys/block/%s/holders", d->name);
			char **h = NULL;
			int n = vw_sysroot_list(c->sr, rel, &h);

			if (n > 0 && !*(p ? p->use : d->refusal)) {
				char *why = vw_xasprintf(_("in use by %s (LVM, RAID or encryption)"), h[0]);

				c->tag = h[0];
				mark(c, d, p, why);
				c->tag = NULL;
				free(why);
			}
			vw_strv_free(h);
			free(rel);
		}
	}
}

/* ---- stable paths --------------------------------------------------------- */

/* Lower is better: names with the model and serial first, then WWNs. */
static int by_id_rank(const char *n)
{
	if (vw_startswith(n, "nvme-eui.") || vw_startswith(n, "nvme-nvme."))
		return 3;
	if (vw_startswith(n, "wwn-"))
		return 2;
	if (vw_startswith(n, "nvme-") || vw_startswith(n, "ata-") || vw_startswith(n, "scsi-") ||
	    vw_startswith(n, "virtio-") || vw_startswith(n, "usb-") || vw_startswith(n, "mmc-"))
		return 1;
	return 4;
}

static void find_by_id(struct ctx *c)
{
	char **names = NULL;
	int n = vw_sysroot_list(c->sr, "dev/disk/by-id", &names);

	for (int i = 0; i < n; i++) {
		char *rel, *target;

		if (strstr(names[i], "-part"))
			continue;
		rel = vw_xasprintf("dev/disk/by-id/%s", names[i]);
		target = vw_sysroot_link_base(c->sr, rel);
		free(rel);
		for (size_t k = 0; target && k < c->s->ndisks; k++) {
			struct vw_blk_disk *d = &c->s->disks[k];
			const char *cur = *d->by_id ? d->by_id + strlen("/dev/disk/by-id/") : NULL;

			if (strcmp(d->name, target))
				continue;
			if (!cur || by_id_rank(names[i]) < by_id_rank(cur) ||
			    (by_id_rank(names[i]) == by_id_rank(cur) && strcmp(names[i], cur) < 0)) {
				free(d->by_id);
				d->by_id = vw_xasprintf("/dev/disk/by-id/%s", names[i]);
			}
		}
		free(target);
	}
	vw_strv_free(names);
}

/* ---- putting it together ------------------------------------------------ */

static void judge(struct ctx *c, bool autofs_esp)
{
	for (size_t i = 0; i < c->s->ndisks; i++) {
		struct vw_blk_disk *d = &c->s->disks[i];
		bool esp = false;

		for (size_t k = 0; k < d->nparts; k++) {
			struct vw_blk_part *p = &d->parts[k];

			esp |= p->esp && !*p->use;
			if (*p->use) {
				char *why = vw_xasprintf("%s %s", p->name, p->use);

				add_reason(&d->refusal, "; ", why);
				free(why);
			}
		}
		d->usable = !*d->refusal;
		if (!d->usable)
			continue;
		if (esp)
			add_reason(&d->warning, " ", autofs_esp
				   ? _("It has an EFI system partition and the host mounts its ESP on demand: make sure it is not the host's.")
				   : _("It has an EFI system partition: make sure the host does not boot from it."));
		if (!*d->by_id)
			add_reason(&d->warning, " ",
				   _("It has no /dev/disk/by-id/ name: its /dev name may change between boots."));
		if (d->removable)
			add_reason(&d->warning, " ", _("It is removable."));
	}
}

static int cmp_disk(const void *a, const void *b)
{
	return strcmp(((const struct vw_blk_disk *)a)->name, ((const struct vw_blk_disk *)b)->name);
}

static bool listed(const struct vw_storage *s, const char *name)
{
	for (size_t i = 0; i < s->ndisks; i++)
		if (!strcmp(s->disks[i].name, name))
			return true;
	return false;
}

int vw_storage_list(const struct vw_sysroot *sr, struct vw_storage *out, struct vw_err *err)
{
	struct ctx c = { .sr = sr, .s = out };
	char **names = NULL;
	int n, nimg = 0;
	bool autofs_esp = false;

	memset(out, 0, sizeof(*out));
	n = vw_sysroot_list(sr, "sys/block", &names);
	for (int i = 0; i < n; i++) {
		if (skipped_name(names[i]))
			continue;
		if (attr_long(sr, "sys/block/%s/size%s", names[i], "") == 0)
			continue;	/* an empty card reader */
		new_disk(&c, names[i], true);
	}
	vw_strv_free(names);
	if (!vw_sysroot_is_host(sr)) {
		nimg = vw_sysroot_list(sr, VW_BLOCKDEV_DIR, &names);
		for (int i = 0; i < nimg; i++) {
			size_t l = strlen(names[i]);
			char *name;

			if (l <= 4 || strcmp(names[i] + l - 4, ".img"))
				continue;
			name = vw_xstrndup(names[i], l - 4);
			if (!skipped_name(name) && !listed(out, name))
				new_disk(&c, name, false);
			free(name);
		}
		vw_strv_free(names);
	}
	if (n < 0 && nimg <= 0)
		return vw_err_set(err, n, _("cannot list the block devices (sys/block): %s"), strerror(-n));
	if (out->ndisks > 1)
		qsort(out->disks, out->ndisks, sizeof(*out->disks), cmp_disk);

	if (vw_sysroot_exists(sr, "proc/self/mounts"))
		read_table(&c, "proc/self/mounts", 3, add_mount, &c);
	else if (vw_sysroot_exists(sr, "proc/mounts"))
		read_table(&c, "proc/mounts", 3, add_mount, &c);
	else
		note(out, vw_xstrdup(_("The mount table (/proc/self/mounts) could not be read: mounted disks cannot be recognised.")));
	claim_mounts(&c);
	read_table(&c, "proc/swaps", 1, add_swap, &c);
	read_table(&c, "etc/fstab", 3, add_fstab, &c);
	claim_holders(&c);
	for (size_t i = 0; i < c.nm; i++) {
		autofs_esp |= !strcmp(c.m[i].type, "autofs") &&
			      (!strcmp(c.m[i].dir, "/boot/efi") || !strcmp(c.m[i].dir, "/efi"));
		free(c.m[i].src);
		free(c.m[i].dir);
		free(c.m[i].type);
	}
	free(c.m);
	find_by_id(&c);
	judge(&c, autofs_esp);
	return 0;
}

void vw_storage_done(struct vw_storage *s)
{
	for (size_t i = 0; i < s->ndisks; i++) {
		struct vw_blk_disk *d = &s->disks[i];

		for (size_t k = 0; k < d->nparts; k++) {
			struct vw_blk_part *p = &d->parts[k];

			free(p->name);
			free(p->dev);
			free(p->fstype);
			free(p->label);
			free(p->uuid);
			free(p->partuuid);
			free(p->partlabel);
			free(p->parttype);
			free(p->use);
		}
		free(d->parts);
		free(d->name);
		free(d->dev);
		free(d->by_id);
		free(d->model);
		free(d->serial);
		free(d->pci);
		free(d->pttype);
		free(d->ptuuid);
		free(d->fstype);
		free(d->label);
		free(d->uuid);
		free(d->refusal);
		free(d->warning);
		free(d->holds);
	}
	free(s->disks);
	for (size_t i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	free(s->notes);
	memset(s, 0, sizeof(*s));
}

const struct vw_blk_disk *vw_storage_find(const struct vw_storage *s, const char *path)
{
	const char *name = vw_startswith(path, "/dev/") && !strchr(path + 5, '/') ? path + 5 : path;

	for (size_t i = 0; i < s->ndisks; i++) {
		const struct vw_blk_disk *d = &s->disks[i];

		if (!strcmp(d->name, name) || (*d->by_id && !strcmp(d->by_id, path)))
			return d;
	}
	return NULL;
}

int vw_storage_check_disk(const struct vw_storage *s, const char *path,
			  const struct vw_blk_disk **disk, struct vw_err *err)
{
	const struct vw_blk_disk *d = vw_storage_find(s, path);

	*disk = NULL;
	if (!d) {
		const char *name = vw_startswith(path, "/dev/") ? path + 5 : path;

		for (size_t i = 0; i < s->ndisks; i++)
			for (size_t k = 0; k < s->disks[i].nparts; k++)
				if (!strcmp(s->disks[i].parts[k].name, name))
					return vw_err_set(err, -EINVAL,
							  _("%s is a partition: give the VM the whole disk %s, or use an image file."),
							  path, s->disks[i].dev);
		return vw_err_set(err, -ENOENT, _("%s is not a disk of this host."), path);
	}
	if (!d->usable)
		return vw_err_set(err, -EBUSY, _("%s cannot go to a VM: the host uses it (%s)."), path, d->refusal);
	*disk = d;
	return 0;
}

char **vw_storage_host_controllers(const struct vw_storage *s)
{
	char **v = vw_xcalloc(s->ndisks + 1, sizeof(char *));
	size_t n = 0;

	for (size_t i = 0; i < s->ndisks; i++) {
		const struct vw_blk_disk *d = &s->disks[i];
		bool dup = false;

		if (d->usable || !*d->pci)
			continue;
		for (size_t k = 0; k < n; k++)
			dup |= !strcmp(v[k], d->pci);
		if (!dup)
			v[n++] = vw_xstrdup(d->pci);
	}
	return v;
}

/* ---- images ------------------------------------------------------------- */

static uint64_t be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void detect_format(int fd, struct vw_image_info *info)
{
	unsigned char h[64];
	ssize_t n = pread(fd, h, sizeof(h), 0);

	snprintf(info->format, sizeof(info->format), "raw");
	info->virtual_size = info->file_size;
	if (n >= 32 && !memcmp(h, "QFI\xfb", 4)) {
		snprintf(info->format, sizeof(info->format), "qcow2");
		info->virtual_size = be64(h + 24);
	} else if (n >= 4 && !memcmp(h, "KDMV", 4)) {
		snprintf(info->format, sizeof(info->format), "vmdk");
	} else if (n >= 8 && !memcmp(h, "vhdxfile", 8)) {
		snprintf(info->format, sizeof(info->format), "vhdx");
	} else if (n >= 4 && !memcmp(h, "<<< ", 4)) {
		snprintf(info->format, sizeof(info->format), "vdi");
	}
}

static void fill_avail(const struct vw_sysroot *sr, const char *dir, struct vw_image_info *info)
{
	int fd = vw_sysroot_openat(sr, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	struct statvfs st;

	if (fd >= 0 && fstatvfs(fd, &st) == 0)
		info->avail = (uint64_t)st.f_bavail * st.f_frsize;
	if (fd >= 0)
		close(fd);
}

int vw_storage_check_image(const struct vw_sysroot *sr, const char *path,
			   struct vw_image_info *info, struct vw_err *err)
{
	struct stat st;
	int fd;

	memset(info, 0, sizeof(*info));
	if (!path || path[0] != '/')
		return vw_err_set(err, -EINVAL, _("The image path must be absolute: \"%s\"."), path ? path : "");
	fd = vw_sysroot_openat(sr, path + 1, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
	if (fd < 0)
		return vw_err_set(err, fd, _("Cannot open the image %s: %s."), path, strerror(-fd));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return vw_err_set(err, -EINVAL, _("%s is not a regular file (for a whole disk, choose the disk instead)."), path);
	}
	info->exists = true;
	info->file_size = (uint64_t)st.st_size;
	detect_format(fd, info);
	close(fd);
	{
		char *dir = vw_xstrndup(path + 1, (size_t)(strrchr(path, '/') - path - 1));

		fill_avail(sr, *dir ? dir : ".", info);
		free(dir);
	}
	return 0;
}

int vw_storage_check_new_image(const struct vw_sysroot *sr, const char *path, uint64_t size,
			       struct vw_image_info *info, struct vw_err *err)
{
	char *dir;
	int rc = 0;

	memset(info, 0, sizeof(*info));
	if (!path || path[0] != '/' || path[strlen(path) - 1] == '/')
		return vw_err_set(err, -EINVAL, _("The image path must be an absolute file name: \"%s\"."), path ? path : "");
	if (size < ((uint64_t)1 << 20))
		return vw_err_set(err, -EINVAL, _("The image size must be at least 1 MiB."));
	if (vw_sysroot_exists(sr, path + 1))
		return vw_err_set(err, -EEXIST, _("%s already exists: qemu-img would overwrite it. Choose another name, or use it as an existing image."), path);
	dir = vw_xstrndup(path + 1, (size_t)(strrchr(path, '/') - path - 1));
	if (*dir && !vw_sysroot_is_dir(sr, dir))
		rc = vw_err_set(err, -ENOENT, _("The directory of %s does not exist."), path);
	else
		fill_avail(sr, *dir ? dir : ".", info);
	free(dir);
	snprintf(info->format, sizeof(info->format), "qcow2");
	info->virtual_size = size;
	return rc;
}

char *vw_storage_qcow2_cmd(const char *path, uint64_t size)
{
	char sz[32];
	const char *argv[] = { "qemu-img", "create", "-f", "qcow2", path, sz, NULL };

	if (size % ((uint64_t)1 << 30) == 0)
		snprintf(sz, sizeof(sz), "%lluG", (unsigned long long)(size >> 30));
	else if (size % 1024 == 0)
		snprintf(sz, sizeof(sz), "%lluK", (unsigned long long)(size >> 10));
	else
		snprintf(sz, sizeof(sz), "%llu", (unsigned long long)size);
	return vw_exec_join(argv);
}

const char *vw_storage_human_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < VW_ARRAY_SIZE(units)) {
		v /= 1024;
		u++;
	}
	if (u == 0 || v >= 100 || v == (double)(uint64_t)v)
		snprintf(buf, len, "%.0f %s", v, units[u]);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}
