/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkhost - build a sysroot-shaped fixture host from a short description.
 *
 *	mkhost DESC.host OUTDIR
 *
 * OUTDIR (created; it must be absent or empty) stands for "/".  Under it the
 * PCI functions are laid out as the kernel lays out sysfs, so that libpci
 * (sysfs.path=OUTDIR/sys/bus/pci) and the wizard read it like a real host.
 *
 * DESCRIPTION FORMAT
 *
 * One directive a line.  Words are separated by blanks; "double quotes" group
 * (inside them \" \\ \t \n \e \xHH are decoded); a word starting with '#'
 * starts a comment; a line ending in '\' continues on the next one.
 *
 *   name NAME                       host name (informational)
 *   cpu vendor=V model="NAME" cpus=N flags="..." [bugs="..."] [family=N]
 *       [model_id=N] [stepping=N] [mhz=N]          -> proc/cpuinfo
 *   kernel VERSION [build="(who) (cc) #1 SMP ..."]  -> proc/version,
 *                                                    proc/sys/kernel/osrelease
 *   cmdline TEXT...                 rest of the line, verbatim -> proc/cmdline
 *   iommu intel|amd|none [units=N] [type=DMA|DMA-FQ|identity]
 *                                   sys/class/iommu/dmarN or ivhdN; type is the
 *                                   default of every group's "type" file
 *   acpi SIG...                     sys/firmware/acpi/tables/SIG (0400), a
 *                                   valid ACPI header (DMAR/IVRS with a body)
 *   efi yes|no                      sys/firmware/efi/ (EFI boot)
 *   efivar NAME-GUID TEXT           efivars entry, TEXT stored as UTF-16LE
 *   dmi key=value...                sys/class/dmi/id/KEY (sys_vendor, ...)
 *   dev DDDD:BB:SS.F key=value...   one PCI function, see below
 *   group N [type=T] [nodevdir]     declare a group (one that no dev names is
 *                                   left empty; nodevdir: no devices/ at all)
 *   dir PATH                        empty directory
 *   block NAME dev=BDF [size=GIB] [parts=N] [model=TEXT] [rotational=0|1]
 *       [removable=0|1] [holders=PART:NAME,...]
 *                                   a disk on the storage controller BDF, laid
 *                                   out as the kernel does (nvme*: under
 *                                   BDF/nvme/nvmeK/, others under a SCSI
 *                                   host); parts=N partitions NAME1.. (NAMEp1..
 *                                   after a digit), the first 1 GiB; holders:
 *                                   dm/md devices using partition PART (0: the
 *                                   whole disk), links to
 *                                   sys/devices/virtual/block/NAME (describe
 *                                   those with file/symlink, their slaves/
 *                                   entries as links back); sys/block and
 *                                   sys/class/block
 *   net IF [dev=BDF] [lower=IF,...] [bridge] [mac=MAC]
 *                                   a network interface: of the PCI function
 *                                   BDF (IF/device), or virtual (a bridge,
 *                                   bond or VLAN) over lower interfaces
 *                                   described before it; sys/class/net/IF
 *   symlink PATH TARGET             TARGET written as given (may dangle/loop)
 *
 * Directives that take content, given on the lines that follow, each line
 * starting with '>' (literal) or '\' (C escapes decoded); one blank after
 * the marker is dropped; every line ends with a newline:
 *
 *   file PATH [mode=0644] [noeol] [gzip]   any file ("/etc/default/grub")
 *   os-release                      usr/lib/os-release + etc/os-release link
 *   kconfig [boot|proc|both]        boot/config-VERSION and/or proc/config.gz
 *   cmd [rc=N] ARGV...              recorded output (stdout and stderr) of a
 *                                   command, in .vfiowiz/cmd/KEY, KEY = ARGV
 *                                   joined by spaces, each byte outside
 *                                   [A-Za-z0-9._-] replaced by '_'; rc=N also
 *                                   writes its exit status to KEY.rc
 *
 * dev keys (a bridge must be described before the devices behind it):
 *   parent=BDF        upstream bridge; absent: the function sits on a root bus
 *   class=CCSSPP      24-bit class (required); 0604xx/0609xx make a bridge
 *   id=VVVV:DDDD      (required)   sub=VVVV:DDDD   rev=HH
 *   driver=NAME       group=N      numa=N (-1)      irq=N
 *   bootvga=0|1       VGA (0300xx) only; other classes get no boot_vga file
 *   reset=flr,bus     reset_method; absent or "none": no reset_method file
 *   pcie=endpoint|legacy|rootport|upstream|downstream|pcibridge|rciep|rcec|N
 *                     PCI Express capability; absent: conventional PCI
 *   link=genGxW       link capability (gen3x1), linksta=genGxW current state
 *   acs=CAP:CTRL      ACS extended capability (cap and control registers)
 *   secbus=N          secondary bus of a bridge with nothing behind it
 *   sriov=TOTAL       an SR-IOV physical function: sriov_totalvfs, sriov_numvfs
 *                     (the VFs that name it), sriov_drivers_autoprobe
 *   vf_of=BDF         a virtual function of that PF (described above): its
 *                     physfn link and the PF's virtfnN link, N in order
 *   slot=NAME         the card's physical slot, on its function 0
 *                     (sys/bus/pci/slots/NAME/address = DDDD:BB:SS)
 *   cfgsize=256|4096  config space size (default 4096 PCIe, 256 conventional)
 *   mf=1              force the multifunction bit (set anyway when the slot
 *                     has several functions)
 *   override=DRV      driver_override ("(null)")   power=D0   d3cold=0|1
 *   enable=0|1        (default 1 when a driver is bound)
 *   barN=SIZE[,64][,pref][,io][,unset][,at=ADDR]
 *                     BAR N (0-5) in `resource`: SIZE with K/M/G/T (256G);
 *                     64-bit BARs are placed from 32 TiB up, the others
 *                     from 3 GiB up (aligned to their size) unless at= says
 *                     where; unset: no address (the kernel's UNSET flag)
 *   rebarN=HEX        resourceN_resize (Resizable BAR sizes, bit n = 2^n MiB)
 * Bad input, for robustness tests:
 *   ATTR_raw=TEXT     write TEXT instead of the attribute (vendor_raw=zzz);
 *                     for links (driver, iommu_group, subsystem) the target
 *   omit=ATTR,...     leave attributes out (omit=irq,config)
 *   config_len=N      truncate the config space file to N bytes
 * plus "symlink" for loops and "group N" with no members.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAXTOK 256

/* ---- errors and allocation ------------------------------------------ */

static const char *desc_path;
static const char *out_path;

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mkhost: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void __attribute__((noreturn, format(printf, 2, 3))) bad(int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", desc_path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

static char * __attribute__((format(printf, 1, 2))) xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	return s;
}

/* Grow an array by one element: APPEND(arr, n) returns the new slot. */
#define APPEND(arr, n) \
	(arr = xrealloc(arr, (size_t)((n) + 1) * sizeof(*(arr))), \
	 memset(&(arr)[n], 0, sizeof(*(arr))), &(arr)[(n)++])

struct buf {
	char *data;
	size_t len, cap;
};

static void buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->data = xrealloc(b->data, b->cap);
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
}

static void __attribute__((format(printf, 2, 3))) buf_printf(struct buf *b, const char *fmt, ...)
{
	char tmp[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		die("formatted line too long");
	buf_add(b, tmp, n);
}

/* ---- the description ----------------------------------------------- */

enum { IOMMU_NONE, IOMMU_INTEL, IOMMU_AMD };

struct kv {
	char *key, *val;
};

struct dev {
	int line;
	char name[16];			/* 0000:01:00.0 */
	unsigned dom, bus, slot, fn;
	int parent;			/* index, -1 on a root bus */
	unsigned cls, vendor, device, svendor, sdevice, rev;
	bool have_cls, have_id;
	char *driver, *reset, *override, *power, *slotname;
	int group, bootvga, numa, irq, pcie, d3cold, enable;
	int gen, width, cur_gen, cur_width;
	bool has_acs;
	unsigned acs_cap, acs_ctrl;
	int cfgsize, config_len, mf;
	int secbus, subbus, nchild;
	int sriov_total, sriov_num;	/* a PF */
	int vf_of, vf_n;		/* a VF: index of its PF, N of virtfnN */
	char *omit;			/* ",irq,config," */
	struct kv *raw;
	int nraw;
	char *path;			/* sys/devices/pci0000:00/.../0000:01:00.0 */
	uint64_t bar_start[6], bar_size[6], rebar[6];
	unsigned long bar_flags[6];
};

struct group {
	int id, line, members;
	char *type;
	bool nodevdir;
};

/* A file with content: "file", "cmd", "kconfig", "os-release". */
struct blob {
	int line;
	char *path;
	mode_t mode;
	bool noeol, gzip;
	struct buf data;
};

/* "block" and "net" directives. */
struct blk {
	int line;
	char *name, *dev, *model, *holders;
	unsigned long size_gib;
	int parts, rotational, removable;
};

struct netif {
	int line;
	char *name, *dev, *lower, *mac, *path;
	bool bridge;
};

struct host {
	char *name;
	bool have_cpu;
	char *cpu_vendor, *cpu_model, *cpu_flags, *cpu_bugs;
	int cpus, family, model, stepping, mhz;
	char *kernel, *kbuild, *cmdline;
	int iommu, iommu_units;
	char *group_type;
	char **acpi;
	int nacpi;
	bool efi;
	struct kv *efivars, *dmi;
	int nefivars, ndmi;
	struct dev *devs;
	int ndevs;
	struct group *groups;
	int ngroups;
	struct blob *blobs;
	int nblobs;
	char **dirs;
	int ndirs;
	struct kv *links;
	int nlinks;
	struct blk *blks;
	int nblks;
	struct netif *nets;
	int nnets;
	int kconfig_blob;		/* index or -1 */
	int kconfig_where;		/* 1 boot, 2 proc, 3 both */
};

/* Attributes a dev may override (_raw) or leave out (omit=). */
static const char *const dev_attrs[] = {
	"vendor", "device", "class", "subsystem_vendor", "subsystem_device",
	"revision", "irq", "numa_node", "resource", "modalias", "enable",
	"d3cold_allowed", "reset_method", "boot_vga", "driver_override",
	"power_state", "config", "current_link_speed", "current_link_width",
	"max_link_speed", "max_link_width", "driver", "iommu_group",
	"subsystem",
};

static bool known_attr(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(dev_attrs) / sizeof(dev_attrs[0]); i++)
		if (strlen(dev_attrs[i]) == n && !memcmp(dev_attrs[i], s, n))
			return true;
	return false;
}

/* ---- lexing --------------------------------------------------------- */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode one escape at *s (just past the backslash) into *out; returns the
 * number of input bytes used. */
static int unescape1(const char *s, char *out, int line)
{
	switch (*s) {
	case 'n': *out = '\n'; return 1;
	case 't': *out = '\t'; return 1;
	case 'r': *out = '\r'; return 1;
	case 'e': *out = 0x1b; return 1;
	case '0': *out = 0; return 1;
	case '\\': case '"': case '\'': *out = *s; return 1;
	case 'x':
		if (hexval(s[1]) < 0 || hexval(s[2]) < 0)
			bad(line, "\\x needs two hex digits");
		*out = (char)(hexval(s[1]) * 16 + hexval(s[2]));
		return 3;
	default:
		bad(line, "unknown escape \\%c", *s ? *s : '0');
	}
}

/* Split line in place into words; quotes group, '#' at a word start ends
 * the line.  Escaped NULs inside quotes are not supported in words. */
static int tokenize(char *s, char **tok, int line)
{
	int n = 0;

	for (;;) {
		char *w;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			return n;
		if (n == MAXTOK)
			bad(line, "too many words");
		w = tok[n++] = s;
		while (*s && *s != ' ' && *s != '\t') {
			if (*s != '"') {
				*w++ = *s++;
				continue;
			}
			s++;
			while (*s != '"') {
				if (!*s)
					bad(line, "unterminated quote");
				if (*s == '\\') {
					s += 1 + unescape1(s + 1, w, line);
					if (!*w)
						bad(line, "\\0 is not allowed in a word");
					w++;
				} else {
					*w++ = *s++;
				}
			}
			s++;
		}
		if (*s)
			s++;
		*w = 0;
	}
}

static char *kv_split(char *word, int line)
{
	char *eq = strchr(word, '=');

	if (!eq || eq == word)
		bad(line, "expected key=value, got \"%s\"", word);
	*eq = 0;
	return eq + 1;
}

static unsigned long parse_num(const char *s, int base, unsigned long max, const char *what, int line)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, base);
	if (!*s || *end || errno || v > max || *s == '-')
		bad(line, "bad %s \"%s\"", what, s);
	return v;
}

/* barN=SIZE[,64][,pref][,io][,unset][,at=ADDR]: IORESOURCE_* flags as the
 * kernel prints them (MEM 0x200, PREFETCH 0x2000, SIZEALIGN 0x40000, MEM_64
 * 0x100000, UNSET 0x20000000; the low bits copy the BAR's own type bits). */
static void parse_bar(struct dev *d, int n, const char *v, int line)
{
	static uint64_t next64 = (uint64_t)32 << 40, next32 = (uint64_t)3 << 30;
	char *end;
	uint64_t size = strtoull(v, &end, 0), at = 0;
	unsigned long fl = 0x40200;
	bool unset = false, have_at = false;

	switch (*end) {
	case 'T': size <<= 10; /* fall through */
	case 'G': size <<= 10; /* fall through */
	case 'M': size <<= 10; /* fall through */
	case 'K': size <<= 10; end++; break;
	}
	if (!size || (size & (size - 1)))
		bad(line, "bar%d: size must be a power of two: %s", n, v);
	while (*end == ',') {
		char *o = end + 1;
		size_t l = strcspn(o, ",");

		if (l == 2 && !strncmp(o, "64", 2))
			fl |= 0x100004;
		else if (l == 4 && !strncmp(o, "pref", 4))
			fl |= 0x2008;
		else if (l == 2 && !strncmp(o, "io", 2))
			fl = (fl & ~0x200UL) | 0x101;
		else if (l == 5 && !strncmp(o, "unset", 5))
			unset = true;
		else if (!strncmp(o, "at=", 3))
			at = strtoull(o + 3, NULL, 0), have_at = true;
		else
			bad(line, "bar%d: unknown option \"%.*s\"", n, (int)l, o);
		end = o + l;
	}
	if (*end)
		bad(line, "bar%d: bad value \"%s\"", n, v);
	if (unset) {
		fl |= 0x20000000;
		at = 0;
	} else if (!have_at) {
		uint64_t *next = (fl & 0x100000) ? &next64 : &next32;

		at = (*next + size - 1) & ~(size - 1);
		*next = at + size;
	}
	d->bar_start[n] = at;
	d->bar_size[n] = size;
	d->bar_flags[n] = fl;
}

static long parse_int(const char *s, const char *what, int line)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (!*s || *end || errno || v < -1000000 || v > 1000000)
		bad(line, "bad %s \"%s\"", what, s);
	return v;
}

static bool parse_bool(const char *s, const char *what, int line)
{
	if (!strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "on"))
		return true;
	if (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "off"))
		return false;
	bad(line, "bad %s \"%s\" (want yes or no)", what, s);
}

static void parse_bdf(const char *s, struct dev *d, int line)
{
	unsigned dom, bus, slot, fn;
	int used = 0;

	if (sscanf(s, "%4x:%2x:%2x.%1u%n", &dom, &bus, &slot, &fn, &used) != 4 ||
	    s[used] || strlen(s) != 12 || slot > 0x1f || fn > 7)
		bad(line, "bad PCI address \"%s\" (want DDDD:BB:SS.F)", s);
	d->dom = dom;
	d->bus = bus;
	d->slot = slot;
	d->fn = fn;
	snprintf(d->name, sizeof(d->name), "%04x:%02x:%02x.%u", dom, bus, slot, fn);
}

static void parse_idpair(const char *s, unsigned *a, unsigned *b, const char *what, int line)
{
	int used = 0;

	if (strlen(s) != 9 || sscanf(s, "%4x:%4x%n", a, b, &used) != 2 || s[used])
		bad(line, "bad %s \"%s\" (want VVVV:DDDD)", what, s);
}

static void parse_link(const char *s, int *gen, int *width, int line)
{
	int used = 0;

	if (sscanf(s, "gen%dx%d%n", gen, width, &used) != 2 || s[used] ||
	    *gen < 1 || *gen > 6 || *width < 1 || *width > 32)
		bad(line, "bad link \"%s\" (want genGxW, e.g. gen4x16)", s);
}

static int pcie_type(const char *s, int line)
{
	static const struct {
		const char *name;
		int type;
	} types[] = {
		{ "endpoint", 0 }, { "legacy", 1 }, { "rootport", 4 },
		{ "upstream", 5 }, { "downstream", 6 }, { "pcibridge", 7 },
		{ "pci2pcie", 8 }, { "rciep", 9 }, { "rcec", 10 },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(s, types[i].name))
			return types[i].type;
	return (int)parse_num(s, 0, 15, "pcie type", line);
}

/* Paths in the description are absolute ("/etc/x"); refuse any that would
 * leave OUTDIR. */
static char *root_path(const char *p, int line)
{
	const char *c;

	if (p[0] != '/' || !p[1])
		bad(line, "path \"%s\" must be absolute", p);
	for (c = p; *c; ) {
		size_t n;

		while (*c == '/')
			c++;
		n = strcspn(c, "/");
		if ((n == 2 && !strncmp(c, "..", 2)) || (n == 1 && *c == '.'))
			bad(line, "path \"%s\" may not contain . or ..", p);
		c += n;
	}
	while (*p == '/')
		p++;
	return xstrdup(p);
}

static struct group *find_group(struct host *h, int id)
{
	for (int i = 0; i < h->ngroups; i++)
		if (h->groups[i].id == id)
			return &h->groups[i];
	return NULL;
}

static struct group *get_group(struct host *h, int id, int line)
{
	struct group *g = find_group(h, id);

	if (!g) {
		g = APPEND(h->groups, h->ngroups);
		g->id = id;
		g->line = line;
	}
	return g;
}

static int find_dev(const struct host *h, const char *name)
{
	for (int i = 0; i < h->ndevs; i++)
		if (!strcmp(h->devs[i].name, name))
			return i;
	return -1;
}

static bool is_bridge(const struct dev *d)
{
	return (d->cls >> 8) == 0x0604 || (d->cls >> 8) == 0x0609;
}

static void parse_dev(struct host *h, char **tok, int n, int line)
{
	struct dev *d;

	if (n < 2)
		bad(line, "dev needs an address");
	d = APPEND(h->devs, h->ndevs);
	d->line = line;
	d->parent = -1;
	d->vf_of = -1;
	d->group = d->bootvga = d->pcie = d->d3cold = d->enable = -1;
	d->numa = -1;
	d->irq = -1;
	d->cfgsize = d->config_len = d->secbus = -1;
	parse_bdf(tok[1], d, line);
	if (find_dev(h, d->name) != h->ndevs - 1)
		bad(line, "%s described twice", d->name);

	for (int i = 2; i < n; i++) {
		char *k = tok[i], *v = kv_split(tok[i], line);
		size_t kl = strlen(k);

		if (!strcmp(k, "parent")) {
			d->parent = find_dev(h, v);
			if (d->parent < 0)
				bad(line, "parent %s is not described above", v);
			if (!is_bridge(&h->devs[d->parent]))
				bad(line, "parent %s is not a bridge (class 0604/0609)", v);
		} else if (!strcmp(k, "class")) {
			if (strlen(v) != 6)
				bad(line, "class wants 6 hex digits, got \"%s\"", v);
			d->cls = parse_num(v, 16, 0xffffff, "class", line);
			d->have_cls = true;
		} else if (!strcmp(k, "id")) {
			parse_idpair(v, &d->vendor, &d->device, "id", line);
			d->have_id = true;
		} else if (!strcmp(k, "sub")) {
			parse_idpair(v, &d->svendor, &d->sdevice, "sub", line);
		} else if (!strcmp(k, "rev")) {
			d->rev = parse_num(v, 16, 0xff, "rev", line);
		} else if (!strcmp(k, "driver")) {
			if (!*v || strchr(v, '/'))
				bad(line, "bad driver name \"%s\"", v);
			d->driver = xstrdup(v);
		} else if (!strcmp(k, "group")) {
			d->group = parse_num(v, 10, 99999, "group", line);
			get_group(h, d->group, line)->members++;
		} else if (!strcmp(k, "numa")) {
			d->numa = parse_int(v, "numa", line);
		} else if (!strcmp(k, "irq")) {
			d->irq = parse_num(v, 10, 100000, "irq", line);
		} else if (!strcmp(k, "bootvga")) {
			d->bootvga = parse_bool(v, "bootvga", line);
		} else if (!strcmp(k, "reset")) {
			if (strcmp(v, "none")) {
				d->reset = xstrdup(v);
				for (char *c = d->reset; *c; c++)
					if (*c == ',')
						*c = ' ';
			}
		} else if (!strcmp(k, "pcie")) {
			d->pcie = pcie_type(v, line);
		} else if (!strcmp(k, "link")) {
			parse_link(v, &d->gen, &d->width, line);
		} else if (!strcmp(k, "linksta")) {
			parse_link(v, &d->cur_gen, &d->cur_width, line);
		} else if (!strcmp(k, "acs")) {
			char *colon = strchr(v, ':');

			if (!colon)
				bad(line, "acs wants CAP:CTRL, got \"%s\"", v);
			*colon = 0;
			d->acs_cap = parse_num(v, 0, 0xffff, "ACS capability", line);
			d->acs_ctrl = parse_num(colon + 1, 0, 0xffff, "ACS control", line);
			d->has_acs = true;
		} else if (!strcmp(k, "secbus")) {
			d->secbus = parse_num(v, 0, 0xff, "secbus", line);
		} else if (!strcmp(k, "sriov")) {
			d->sriov_total = parse_num(v, 10, 4096, "sriov", line);
		} else if (!strcmp(k, "vf_of")) {
			d->vf_of = find_dev(h, v);
			if (d->vf_of < 0 || !h->devs[d->vf_of].sriov_total)
				bad(line, "vf_of %s is not a PF (sriov=N) described above", v);
			d->vf_n = h->devs[d->vf_of].sriov_num++;
			if (d->vf_n >= h->devs[d->vf_of].sriov_total)
				bad(line, "%s has more VFs than its sriov=%d", v, h->devs[d->vf_of].sriov_total);
		} else if (!strcmp(k, "slot")) {
			if (!*v || strchr(v, '/') || *v == '.')
				bad(line, "bad slot name \"%s\"", v);
			d->slotname = xstrdup(v);
		} else if (!strcmp(k, "cfgsize")) {
			d->cfgsize = parse_num(v, 10, 4096, "cfgsize", line);
			if (d->cfgsize != 256 && d->cfgsize != 4096)
				bad(line, "cfgsize is 256 or 4096");
		} else if (!strcmp(k, "mf")) {
			d->mf = parse_bool(v, "mf", line);
		} else if (!strcmp(k, "override")) {
			d->override = xstrdup(v);
		} else if (!strcmp(k, "power")) {
			d->power = xstrdup(v);
		} else if (!strcmp(k, "d3cold")) {
			d->d3cold = parse_bool(v, "d3cold", line);
		} else if (!strcmp(k, "enable")) {
			d->enable = parse_bool(v, "enable", line);
		} else if (!strcmp(k, "config_len")) {
			d->config_len = parse_num(v, 10, 4096, "config_len", line);
		} else if (!strncmp(k, "bar", 3) && k[3] >= '0' && k[3] <= '5' && !k[4]) {
			parse_bar(d, k[3] - '0', v, line);
		} else if (!strncmp(k, "rebar", 5) && k[5] >= '0' && k[5] <= '5' && !k[6]) {
			d->rebar[k[5] - '0'] = strtoull(v, NULL, 16);
		} else if (!strcmp(k, "omit")) {
			for (char *a = v; *a; ) {
				size_t l = strcspn(a, ",");

				if (!known_attr(a, l))
					bad(line, "omit: unknown attribute \"%.*s\"", (int)l, a);
				a += l + (a[l] == ',');
			}
			d->omit = xasprintf(",%s,", v);
		} else if (kl > 4 && !strcmp(k + kl - 4, "_raw")) {
			struct kv *r;

			if (!known_attr(k, kl - 4))
				bad(line, "unknown attribute \"%.*s\"", (int)kl - 4, k);
			r = APPEND(d->raw, d->nraw);
			r->key = xstrdup(k);
			r->key[kl - 4] = 0;
			r->val = xstrdup(v);
		} else {
			bad(line, "unknown dev key \"%s\"", k);
		}
	}
	if (!d->have_cls || !d->have_id)
		bad(line, "dev %s needs class= and id=", d->name);
	if (d->bootvga >= 0 && (d->cls >> 8) != 0x0300)
		bad(line, "bootvga= is for VGA class 0300xx only (the kernel makes no boot_vga file for others)");
	if (d->has_acs && d->pcie < 0)
		bad(line, "acs= needs pcie= (extended capabilities exist only on PCI Express)");
	if (d->cfgsize < 0)
		d->cfgsize = d->pcie >= 0 ? 4096 : 256;
	if (d->has_acs && d->cfgsize < 4096)
		bad(line, "acs= needs cfgsize=4096");
	if ((d->gen || d->cur_gen) && d->pcie < 0)
		bad(line, "link= needs pcie=");
	if (d->pcie >= 0 && !d->gen) {
		d->gen = 3;
		d->width = 1;
	}
	if (!d->cur_gen) {
		d->cur_gen = d->gen;
		d->cur_width = d->width;
	}
	if (d->enable < 0)
		d->enable = d->driver != NULL;
	if (d->d3cold < 0)
		d->d3cold = 1;
	if (d->bootvga < 0 && (d->cls >> 8) == 0x0300)
		d->bootvga = 0;
	if (d->irq < 0)
		d->irq = is_bridge(d) ? 24 + h->ndevs % 100 : 16 + h->ndevs % 150;
}

/* Directives that take '>' lines return the blob the lines go to. */
static struct blob *new_blob(struct host *h, char *path, int line)
{
	struct blob *b;

	for (int i = 0; i < h->nblobs; i++)
		if (!strcmp(h->blobs[i].path, path))
			bad(line, "/%s is given twice (first at line %d)", path, h->blobs[i].line);
	b = APPEND(h->blobs, h->nblobs);
	b->line = line;
	b->path = path;
	b->mode = 0644;
	return b;
}

static char *cmd_key(char **argv, int argc)
{
	struct buf b = { 0 };

	for (int i = 0; i < argc; i++) {
		if (i)
			buf_add(&b, " ", 1);
		buf_add(&b, argv[i], strlen(argv[i]));
	}
	for (char *c = b.data; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-')
			*c = '_';
	return b.data;
}

static struct blob *parse_line(struct host *h, char *line, int lineno)
{
	char *tok[MAXTOK];
	int n;
	const char *d;

	/* cmdline keeps the rest of the line as it is (quotes, '#', '\'). */
	if (!strncmp(line, "cmdline", 7) && (line[7] == ' ' || line[7] == '\t' || !line[7])) {
		char *s = line + 7, *e;

		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = 0;
		if (h->cmdline)
			bad(lineno, "cmdline given twice");
		h->cmdline = xstrdup(s);
		return NULL;
	}

	n = tokenize(line, tok, lineno);
	if (!n)
		return NULL;
	d = tok[0];

	if (!strcmp(d, "name")) {
		if (n != 2)
			bad(lineno, "name wants one word");
		h->name = xstrdup(tok[1]);
	} else if (!strcmp(d, "cpu")) {
		h->have_cpu = true;
		for (int i = 1; i < n; i++) {
			char *k = tok[i], *v = kv_split(tok[i], lineno);

			if (!strcmp(k, "vendor"))
				h->cpu_vendor = xstrdup(v);
			else if (!strcmp(k, "model"))
				h->cpu_model = xstrdup(v);
			else if (!strcmp(k, "flags"))
				h->cpu_flags = xstrdup(v);
			else if (!strcmp(k, "bugs"))
				h->cpu_bugs = xstrdup(v);
			else if (!strcmp(k, "cpus"))
				h->cpus = parse_num(v, 10, 4096, "cpus", lineno);
			else if (!strcmp(k, "family"))
				h->family = parse_num(v, 0, 255, "family", lineno);
			else if (!strcmp(k, "model_id"))
				h->model = parse_num(v, 0, 255, "model_id", lineno);
			else if (!strcmp(k, "stepping"))
				h->stepping = parse_num(v, 0, 255, "stepping", lineno);
			else if (!strcmp(k, "mhz"))
				h->mhz = parse_num(v, 10, 100000, "mhz", lineno);
			else
				bad(lineno, "unknown cpu key \"%s\"", k);
		}
		if (!h->cpu_vendor || !h->cpu_model || !h->cpus)
			bad(lineno, "cpu needs vendor=, model= and cpus=");
	} else if (!strcmp(d, "kernel")) {
		if (n < 2)
			bad(lineno, "kernel wants a version");
		h->kernel = xstrdup(tok[1]);
		for (int i = 2; i < n; i++) {
			char *k = tok[i], *v = kv_split(tok[i], lineno);

			if (strcmp(k, "build"))
				bad(lineno, "unknown kernel key \"%s\"", k);
			h->kbuild = xstrdup(v);
		}
	} else if (!strcmp(d, "iommu")) {
		if (n < 2)
			bad(lineno, "iommu wants intel, amd or none");
		if (!strcmp(tok[1], "intel"))
			h->iommu = IOMMU_INTEL;
		else if (!strcmp(tok[1], "amd"))
			h->iommu = IOMMU_AMD;
		else if (!strcmp(tok[1], "none"))
			h->iommu = IOMMU_NONE;
		else
			bad(lineno, "iommu wants intel, amd or none, got \"%s\"", tok[1]);
		for (int i = 2; i < n; i++) {
			char *k = tok[i], *v = kv_split(tok[i], lineno);

			if (!strcmp(k, "units"))
				h->iommu_units = parse_num(v, 10, 64, "units", lineno);
			else if (!strcmp(k, "type"))
				h->group_type = xstrdup(v);
			else
				bad(lineno, "unknown iommu key \"%s\"", k);
		}
	} else if (!strcmp(d, "acpi")) {
		for (int i = 1; i < n; i++) {
			if (strlen(tok[i]) != 4)
				bad(lineno, "ACPI signatures have 4 characters: \"%s\"", tok[i]);
			*APPEND(h->acpi, h->nacpi) = xstrdup(tok[i]);
		}
	} else if (!strcmp(d, "efi")) {
		if (n != 2)
			bad(lineno, "efi wants yes or no");
		h->efi = parse_bool(tok[1], "efi", lineno);
	} else if (!strcmp(d, "efivar")) {
		struct kv *e;

		if (n != 3 || strchr(tok[1], '/'))
			bad(lineno, "efivar wants NAME-GUID and one (quoted) value");
		e = APPEND(h->efivars, h->nefivars);
		e->key = xstrdup(tok[1]);
		e->val = xstrdup(tok[2]);
	} else if (!strcmp(d, "dmi")) {
		for (int i = 1; i < n; i++) {
			char *k = tok[i], *v = kv_split(tok[i], lineno);
			struct kv *e;

			if (strspn(k, "abcdefghijklmnopqrstuvwxyz_") != strlen(k))
				bad(lineno, "bad dmi key \"%s\"", k);
			e = APPEND(h->dmi, h->ndmi);
			e->key = xstrdup(k);
			e->val = xstrdup(v);
		}
	} else if (!strcmp(d, "dev")) {
		parse_dev(h, tok, n, lineno);
	} else if (!strcmp(d, "group")) {
		struct group *g;

		if (n < 2)
			bad(lineno, "group wants a number");
		g = get_group(h, parse_num(tok[1], 10, 99999, "group", lineno), lineno);
		for (int i = 2; i < n; i++) {
			if (!strcmp(tok[i], "nodevdir")) {
				g->nodevdir = true;
				continue;
			}
			char *k = tok[i], *v = kv_split(tok[i], lineno);

			if (strcmp(k, "type"))
				bad(lineno, "unknown group key \"%s\"", k);
			g->type = xstrdup(v);
		}
	} else if (!strcmp(d, "dir")) {
		if (n != 2)
			bad(lineno, "dir wants one path");
		*APPEND(h->dirs, h->ndirs) = root_path(tok[1], lineno);
	} else if (!strcmp(d, "block")) {
		struct blk *b;

		if (n < 2 || strchr(tok[1], '/') || strchr(tok[1], '='))
			bad(lineno, "block wants a disk name");
		b = APPEND(h->blks, h->nblks);
		memset(b, 0, sizeof(*b));
		b->line = lineno;
		b->name = xstrdup(tok[1]);
		b->size_gib = 512;
		for (int i = 2; i < n; i++) {
			char *k = tok[i], *v = kv_split(tok[i], lineno);

			if (!strcmp(k, "dev"))
				b->dev = xstrdup(v);
			else if (!strcmp(k, "size"))
				b->size_gib = parse_num(v, 10, 1ul << 20, "size", lineno);
			else if (!strcmp(k, "parts"))
				b->parts = (int)parse_num(v, 10, 64, "parts", lineno);
			else if (!strcmp(k, "model"))
				b->model = xstrdup(v);
			else if (!strcmp(k, "rotational"))
				b->rotational = parse_bool(v, "rotational", lineno);
			else if (!strcmp(k, "removable"))
				b->removable = parse_bool(v, "removable", lineno);
			else if (!strcmp(k, "holders"))
				b->holders = xstrdup(v);
			else
				bad(lineno, "unknown block key \"%s\"", k);
		}
		if (!b->dev)
			bad(lineno, "block wants dev=BDF");
		if (b->parts && b->size_gib <= (unsigned long)b->parts)
			bad(lineno, "block: size too small for %d partitions", b->parts);
	} else if (!strcmp(d, "net")) {
		struct netif *f;

		if (n < 2 || strchr(tok[1], '/') || strchr(tok[1], '='))
			bad(lineno, "net wants an interface name");
		f = APPEND(h->nets, h->nnets);
		memset(f, 0, sizeof(*f));
		f->line = lineno;
		f->name = xstrdup(tok[1]);
		for (int i = 2; i < n; i++) {
			char *k = tok[i], *v;

			if (!strcmp(k, "bridge")) {
				f->bridge = true;
				continue;
			}
			v = kv_split(tok[i], lineno);
			if (!strcmp(k, "dev"))
				f->dev = xstrdup(v);
			else if (!strcmp(k, "lower"))
				f->lower = xstrdup(v);
			else if (!strcmp(k, "mac"))
				f->mac = xstrdup(v);
			else
				bad(lineno, "unknown net key \"%s\"", k);
		}
		if (f->dev && f->lower)
			bad(lineno, "net: dev= and lower= exclude each other");
	} else if (!strcmp(d, "symlink")) {
		struct kv *l;

		if (n != 3)
			bad(lineno, "symlink wants PATH TARGET");
		l = APPEND(h->links, h->nlinks);
		l->key = root_path(tok[1], lineno);
		l->val = xstrdup(tok[2]);
	} else if (!strcmp(d, "file")) {
		struct blob *b;

		if (n < 2)
			bad(lineno, "file wants a path");
		b = new_blob(h, root_path(tok[1], lineno), lineno);
		for (int i = 2; i < n; i++) {
			if (!strcmp(tok[i], "noeol")) {
				b->noeol = true;
			} else if (!strcmp(tok[i], "gzip")) {
				b->gzip = true;
			} else {
				char *k = tok[i], *v = kv_split(tok[i], lineno);

				if (strcmp(k, "mode"))
					bad(lineno, "unknown file option \"%s\"", k);
				b->mode = parse_num(v, 8, 07777, "mode", lineno);
			}
		}
		return b;
	} else if (!strcmp(d, "os-release")) {
		if (n != 1)
			bad(lineno, "os-release takes no arguments, only '>' lines");
		return new_blob(h, xstrdup("usr/lib/os-release"), lineno);
	} else if (!strcmp(d, "kconfig")) {
		if (h->kconfig_blob >= 0)
			bad(lineno, "kconfig given twice");
		h->kconfig_where = 1;
		if (n == 2 && !strcmp(tok[1], "proc"))
			h->kconfig_where = 2;
		else if (n == 2 && !strcmp(tok[1], "both"))
			h->kconfig_where = 3;
		else if (n > 2 || (n == 2 && strcmp(tok[1], "boot")))
			bad(lineno, "kconfig wants boot, proc or both");
		h->kconfig_blob = h->nblobs;
		return new_blob(h, xstrdup("(kconfig)"), lineno);
	} else if (!strcmp(d, "cmd")) {
		int first = 1;
		char *key;

		if (n > 1 && !strncmp(tok[1], "rc=", 3)) {
			struct blob *rc;

			first = 2;
			if (n < 3)
				bad(lineno, "cmd wants a command");
			key = cmd_key(tok + 2, n - 2);
			rc = new_blob(h, xasprintf(".vfiowiz/cmd/%s.rc", key), lineno);
			buf_printf(&rc->data, "%lu\n", parse_num(tok[1] + 3, 10, 255, "rc", lineno));
			free(key);
		}
		if (n <= first)
			bad(lineno, "cmd wants a command");
		key = cmd_key(tok + first, n - first);
		return new_blob(h, xasprintf(".vfiowiz/cmd/%s", key), lineno);
	} else {
		bad(lineno, "unknown directive \"%s\"", d);
	}
	return NULL;
}

static void parse_file(struct host *h, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, start = 0;
	struct buf joined = { 0 };
	struct blob *cur = NULL;

	if (!f)
		die("%s: %s", path, strerror(errno));
	h->kconfig_blob = -1;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		if (memchr(line, 0, len))
			bad(lineno, "NUL byte in description");

		/* Content lines: '>' literal, '\' with escapes. */
		if (!joined.len && (line[0] == '>' || line[0] == '\\')) {
			char *s = line + 1;

			if (!cur)
				bad(lineno, "content line outside file/cmd/kconfig/os-release");
			if (*s == ' ')
				s++;
			else if (*s && line[0] == '\\')
				bad(lineno, "escaped content lines start with '\\ '");
			if (line[0] == '>') {
				buf_add(&cur->data, s, strlen(s));
			} else {
				while (*s) {
					char c;

					if (*s != '\\') {
						buf_add(&cur->data, s++, 1);
						continue;
					}
					s += 1 + unescape1(s + 1, &c, lineno);
					buf_add(&cur->data, &c, 1);
				}
			}
			buf_add(&cur->data, "\n", 1);
			continue;
		}

		if (!joined.len)
			start = lineno;
		if (len && line[len - 1] == '\\') {
			line[len - 1] = ' ';
			buf_add(&joined, line, len);
			continue;
		}
		buf_add(&joined, line, len);
		{
			char *s = joined.data;

			while (*s == ' ' || *s == '\t')
				s++;
			if (*s && *s != '#')
				cur = parse_line(h, s, start);
		}
		joined.len = 0;
	}
	if (joined.len)
		bad(start, "continued line never ends");
	free(joined.data);
	free(line);
	fclose(f);
}

/* ---- checks and derived values -------------------------------------- */

static void resolve(struct host *h)
{
	/* Bus numbers, in description order so that errors point at the
	 * device that breaks them. */
	for (int i = 0; i < h->ndevs; i++) {
		struct dev *d = &h->devs[i], *p;

		if (is_bridge(d))
			d->subbus = d->secbus;
		if (d->parent < 0)
			continue;
		p = &h->devs[d->parent];
		if (d->dom != p->dom)
			bad(d->line, "%s is in another PCI domain than its parent %s", d->name, p->name);
		if (d->bus <= p->bus)
			bad(d->line, "%s: bus %02x must be above its parent's bus %02x", d->name, d->bus, p->bus);
		if (p->secbus >= 0 && p->secbus != (int)d->bus)
			bad(d->line, "%s: the bus behind %s is %02x, not %02x", d->name, p->name, p->secbus, d->bus);
		p->secbus = p->subbus = d->bus;
		p->nchild++;
	}
	/* Subordinate buses: children come after their parents, so walking
	 * backwards sees every subtree complete before its bridge. */
	for (int i = h->ndevs - 1; i >= 0; i--) {
		struct dev *d = &h->devs[i], *p;
		int top;

		if (d->parent < 0)
			continue;
		p = &h->devs[d->parent];
		top = is_bridge(d) && d->subbus > (int)d->bus ? d->subbus : (int)d->bus;
		if (top > p->subbus)
			p->subbus = top;
	}
	for (int i = 0; i < h->ndevs; i++) {
		struct dev *d = &h->devs[i];

		if (is_bridge(d) && d->secbus < 0)
			d->secbus = d->subbus = 0;
		if (d->parent >= 0)
			continue;
		for (int j = 0; j < h->ndevs; j++)
			if (is_bridge(&h->devs[j]) && h->devs[j].nchild &&
			    h->devs[j].dom == d->dom && h->devs[j].secbus == (int)d->bus)
				bad(d->line, "%s has no parent= but bus %02x is behind %s",
				    d->name, d->bus, h->devs[j].name);
	}

	for (int i = 0; i < h->ndevs; i++)
		for (int j = 0; j < i && h->devs[i].slotname; j++)
			if (h->devs[j].slotname && !strcmp(h->devs[i].slotname, h->devs[j].slotname))
				bad(h->devs[i].line, "slot %s is already %s's (line %d)",
				    h->devs[i].slotname, h->devs[j].name, h->devs[j].line);

	/* Several functions in one slot: set the multifunction bit on all. */
	for (int i = 0; i < h->ndevs; i++)
		for (int j = 0; j < h->ndevs; j++) {
			struct dev *a = &h->devs[i], *b = &h->devs[j];

			if (i != j && a->dom == b->dom && a->bus == b->bus && a->slot == b->slot)
				a->mf = 1;
		}

	for (int i = 0; i < h->ndevs; i++) {
		struct dev *d = &h->devs[i];

		if (d->parent >= 0)
			d->path = xasprintf("%s/%s", h->devs[d->parent].path, d->name);
		else
			d->path = xasprintf("sys/devices/pci%04x:%02x/%s", d->dom, d->bus, d->name);
	}
	if (h->kconfig_blob >= 0 && !h->kernel)
		bad(h->blobs[h->kconfig_blob].line, "kconfig needs a kernel line (for boot/config-VERSION)");
}

/* ---- writing the tree ----------------------------------------------- */

static int rootfd = -1;

static void mkdirs(const char *rel)
{
	char *p = xstrdup(rel);

	for (char *s = p; ; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;

		*s = 0;
		if (mkdirat(rootfd, p, 0755) && errno != EEXIST)
			die("%s/%s: %s", out_path, p, strerror(errno));
		if (!c)
			break;
		*s = c;
	}
	free(p);
}

static void mkparent(const char *rel)
{
	char *p = xstrdup(rel), *slash = strrchr(p, '/');

	if (slash) {
		*slash = 0;
		mkdirs(p);
	}
	free(p);
}

static void putat(int dirfd, const char *where, const char *name, const void *data,
		  size_t len, mode_t mode)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0)
		die("%s/%s/%s: %s", out_path, where, name, strerror(errno));
	if (len && write(fd, data, len) != (ssize_t)len)
		die("%s/%s/%s: write failed", out_path, where, name);
	if (close(fd))
		die("%s/%s/%s: %s", out_path, where, name, strerror(errno));
}

static void put(const char *rel, const void *data, size_t len, mode_t mode)
{
	mkparent(rel);
	putat(rootfd, ".", rel, data, len, mode);
}

static void puts_(const char *rel, const char *s)
{
	put(rel, s, strlen(s), 0644);
}

static void link_at(int dirfd, const char *where, const char *name, const char *target)
{
	if (symlinkat(target, dirfd, name))
		die("%s/%s/%s: %s", out_path, where, name, strerror(errno));
}

/* Relative link target from directory "from" to "to", both below the
 * root, through their common ancestor, as sysfs_create_link() writes them. */
static char *relpath(const char *from, const char *to)
{
	size_t common = 0, i;
	struct buf b = { 0 };

	for (i = 0; from[i] && from[i] == to[i]; i++)
		if (from[i] == '/')
			common = i + 1;
	if (!from[i] && to[i] == '/')
		common = i + 1;
	else if (!from[i] && !to[i])
		common = i;
	for (const char *s = from + common; *s; s++)
		if (s == from + common || s[-1] == '/')
			buf_add(&b, "../", 3);
	buf_add(&b, to + common, strlen(to + common));
	return b.data;
}

static void link_rel(const char *rel, const char *target_rel)
{
	char *dir = xstrdup(rel), *slash = strrchr(dir, '/');
	char *t;

	*slash = 0;
	t = relpath(dir, target_rel);
	/* The directory usually exists: try the link first. */
	if (symlinkat(t, rootfd, rel)) {
		if (errno != ENOENT)
			die("%s/%s: %s", out_path, rel, strerror(errno));
		mkdirs(dir);
		link_at(rootfd, ".", rel, t);
	}
	free(t);
	free(dir);
}

static bool omitted(const struct dev *d, const char *attr)
{
	char key[64];

	if (!d->omit)
		return false;
	snprintf(key, sizeof(key), ",%s,", attr);
	return strstr(d->omit, key) != NULL;
}

static const char *raw_of(const struct dev *d, const char *attr)
{
	for (int i = 0; i < d->nraw; i++)
		if (!strcmp(d->raw[i].key, attr))
			return d->raw[i].val;
	return NULL;
}

static void __attribute__((format(printf, 5, 6)))
attr(int dfd, const struct dev *d, const char *name, mode_t mode, const char *fmt, ...)
{
	char tmp[2048];
	const char *raw;
	va_list ap;
	int n;

	if (omitted(d, name))
		return;
	raw = raw_of(d, name);
	if (raw) {
		n = snprintf(tmp, sizeof(tmp), "%s\n", raw);
	} else {
		va_start(ap, fmt);
		n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
		va_end(ap);
	}
	if (n < 0 || (size_t)n >= sizeof(tmp))
		die("%s: attribute %s too long", d->name, name);
	putat(dfd, d->path, name, tmp, n, mode);
}

static void attr_link(int dfd, const struct dev *d, const char *name, const char *target_rel)
{
	const char *raw;
	char *t;

	if (omitted(d, name))
		return;
	raw = raw_of(d, name);
	if (raw) {
		link_at(dfd, d->path, name, raw);
		return;
	}
	t = relpath(d->path, target_rel);
	link_at(dfd, d->path, name, t);
	free(t);
}

static void put16(uint8_t *c, int off, unsigned v)
{
	c[off] = v & 0xff;
	c[off + 1] = (v >> 8) & 0xff;
}

static void put32(uint8_t *c, int off, uint32_t v)
{
	put16(c, off, v & 0xffff);
	put16(c, off + 2, v >> 16);
}

/* Config space: header, then PM and MSI, the PCIe capability, a bridge's
 * subsystem ids; AER and ACS in the extended space of PCIe functions. */
static void build_config(const struct dev *d, uint8_t *c)
{
	bool bridge = is_bridge(d);
	int pos, link;
	unsigned pm_state = 0;

	memset(c, 0, 4096);
	put16(c, 0x00, d->vendor);
	put16(c, 0x02, d->device);
	put16(c, 0x04, d->enable ? (bridge ? 0x0407 : 0x0406) : 0);
	put16(c, 0x06, 0x0010);			/* capability list */
	c[0x08] = d->rev;
	c[0x09] = d->cls & 0xff;
	c[0x0a] = (d->cls >> 8) & 0xff;
	c[0x0b] = (d->cls >> 16) & 0xff;
	c[0x0c] = 0x10;
	c[0x0e] = (bridge ? 1 : 0) | (d->mf ? 0x80 : 0);
	if (bridge) {
		c[0x18] = d->bus;
		c[0x19] = d->secbus;
		c[0x1a] = d->subbus;
		/* Windows closed (base above limit), as firmware leaves them
		 * when nothing is assigned; the resource file tells the rest. */
		c[0x1c] = 0xf0;
		put16(c, 0x20, 0xfff0);
		put16(c, 0x24, 0xfff1);
	} else {
		put16(c, 0x2c, d->svendor);
		put16(c, 0x2e, d->sdevice);
	}
	c[0x34] = 0x40;
	c[0x3c] = d->irq & 0xff;
	c[0x3d] = 1;

	if (d->power && !strcmp(d->power, "D3hot"))
		pm_state = 3;
	c[0x40] = 0x01;				/* power management */
	c[0x41] = 0x50;
	put16(c, 0x42, 0x0003);
	put16(c, 0x44, pm_state);
	c[0x50] = 0x05;				/* MSI, 64-bit */
	put16(c, 0x52, 0x0080);
	link = 0x51;			/* where the next pointer goes */
	pos = 0x60;
	if (d->pcie >= 0) {
		bool port = d->pcie == 4 || d->pcie == 6;
		bool dlla = port && d->nchild;

		c[link] = pos;
		c[pos] = 0x10;
		put16(c, pos + 2, 0x0002 | d->pcie << 4 | (port ? 0x0100 : 0));
		put32(c, pos + 4, 0x00008001 |
		      (d->reset && strstr(d->reset, "flr") ? 1u << 28 : 0));
		put16(c, pos + 8, 0x2010);
		put32(c, pos + 0x0c, d->gen | d->width << 4 | 3 << 10 |
		      (dlla ? 1u << 20 : 0) | (uint32_t)(d->slot & 0xff) << 24);
		put16(c, pos + 0x12, d->cur_gen | d->cur_width << 4 | (dlla ? 1u << 13 : 0));
		if (port)
			put32(c, pos + 0x14, (uint32_t)(d->slot + 1) << 19);
		put32(c, pos + 0x2c, ((1u << d->gen) - 1) << 1);
		put16(c, pos + 0x30, d->gen);
		link = pos + 1;
		pos = 0xa0;
	}
	if (bridge && (d->svendor || d->sdevice)) {
		c[link] = pos;
		c[pos] = 0x0d;			/* bridge subsystem ids */
		put16(c, pos + 4, d->svendor);
		put16(c, pos + 6, d->sdevice);
	}

	if (d->pcie >= 0 && d->cfgsize == 4096) {
		/* Extended header: id | version << 16 | next << 20. */
		put32(c, 0x100, 0x0001 | 2 << 16 | (d->has_acs ? 0x148u : 0) << 20);
		if (d->has_acs) {
			put32(c, 0x148, 0x000d | 1 << 16);
			put16(c, 0x14c, d->acs_cap);
			put16(c, 0x14e, d->acs_ctrl);
		}
	}
}

static const char *speed_name(int gen)
{
	static const char *const names[] = {
		"Unknown", "2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe",
		"16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe",
	};

	return names[gen];
}

static void write_dev(struct host *h, struct dev *d)
{
	static uint8_t cfg[4096];
	int dfd, nres;
	size_t clen;
	char line[] = "0x0000000000000000 0x0000000000000000 0x0000000000000000\n";
	char res[18 * sizeof(line)];

	if (d->parent < 0) {
		static char last_root[64];	/* sys/devices/pciDDDD:BB */
		size_t n = strrchr(d->path, '/') - d->path;

		if (n >= sizeof(last_root) || strncmp(last_root, d->path, n) || last_root[n]) {
			mkparent(d->path);
			snprintf(last_root, sizeof(last_root), "%.*s", (int)n, d->path);
		}
	}
	if (mkdirat(rootfd, d->path, 0755))
		die("%s/%s: %s", out_path, d->path, strerror(errno));
	dfd = openat(rootfd, d->path, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (dfd < 0)
		die("%s/%s: %s", out_path, d->path, strerror(errno));

	attr(dfd, d, "vendor", 0444, "0x%04x\n", d->vendor);
	attr(dfd, d, "device", 0444, "0x%04x\n", d->device);
	attr(dfd, d, "class", 0444, "0x%06x\n", d->cls);
	attr(dfd, d, "subsystem_vendor", 0444, "0x%04x\n", d->svendor);
	attr(dfd, d, "subsystem_device", 0444, "0x%04x\n", d->sdevice);
	attr(dfd, d, "revision", 0444, "0x%02x\n", d->rev);
	attr(dfd, d, "irq", 0444, "%d\n", d->irq);
	attr(dfd, d, "numa_node", 0644, "%d\n", d->numa);
	attr(dfd, d, "enable", 0644, "%d\n", d->enable);
	attr(dfd, d, "d3cold_allowed", 0644, "%d\n", d->d3cold);
	attr(dfd, d, "driver_override", 0644, "%s\n", d->override ? d->override : "(null)");
	attr(dfd, d, "power_state", 0444, "%s\n", d->power ? d->power : "D0");
	attr(dfd, d, "modalias", 0444, "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X\n",
	     d->vendor, d->device, d->svendor, d->sdevice,
	     d->cls >> 16, (d->cls >> 8) & 0xff, d->cls & 0xff);
	if (d->reset || raw_of(d, "reset_method"))
		attr(dfd, d, "reset_method", 0644, "%s\n", d->reset);
	if (d->bootvga >= 0 || raw_of(d, "boot_vga"))
		attr(dfd, d, "boot_vga", 0444, "%d\n", d->bootvga);
	if (d->pcie >= 0) {
		attr(dfd, d, "max_link_speed", 0444, "%s\n", speed_name(d->gen));
		attr(dfd, d, "max_link_width", 0444, "%d\n", d->width);
		attr(dfd, d, "current_link_speed", 0444, "%s\n", speed_name(d->cur_gen));
		attr(dfd, d, "current_link_width", 0444, "%d\n", d->cur_width);
	}

	/* With CONFIG_PCI_IOV the kernel prints 13 resources, 17 for bridges. */
	nres = is_bridge(d) ? 17 : 13;
	for (int i = 0; i < nres; i++) {
		memcpy(res + i * (sizeof(line) - 1), line, sizeof(line) - 1);
		if (i < 6 && d->bar_size[i]) {
			char b[sizeof(line)];

			snprintf(b, sizeof(b), "0x%016llx 0x%016llx 0x%016lx\n",
				 (unsigned long long)d->bar_start[i],
				 (unsigned long long)(d->bar_start[i] + d->bar_size[i] - 1), d->bar_flags[i]);
			memcpy(res + i * (sizeof(line) - 1), b, sizeof(line) - 1);
		}
		if (i < 6 && d->rebar[i]) {
			char name[24];

			snprintf(name, sizeof(name), "resource%d_resize", i);
			attr(dfd, d, name, 0644, "%016llx\n", (unsigned long long)d->rebar[i]);
		}
	}
	if (!omitted(d, "resource")) {
		const char *raw = raw_of(d, "resource");

		if (raw)
			attr(dfd, d, "resource", 0444, "%s", raw);
		else
			putat(dfd, d->path, "resource", res, nres * (sizeof(line) - 1), 0444);
	}

	if (!omitted(d, "config")) {
		build_config(d, cfg);
		clen = d->config_len >= 0 && d->config_len < d->cfgsize ?
		       (size_t)d->config_len : (size_t)d->cfgsize;
		putat(dfd, d->path, "config", cfg, clen, 0644);
	}

	attr_link(dfd, d, "subsystem", "sys/bus/pci");
	if (d->driver || raw_of(d, "driver")) {
		char *drv = xasprintf("sys/bus/pci/drivers/%s", d->driver ? d->driver : "");

		attr_link(dfd, d, "driver", drv);
		free(drv);
	}
	if (d->group >= 0 || raw_of(d, "iommu_group")) {
		char *g = xasprintf("sys/kernel/iommu_groups/%d", d->group);

		attr_link(dfd, d, "iommu_group", g);
		free(g);
	}
	if (d->sriov_total) {
		attr(dfd, d, "sriov_totalvfs", 0444, "%d\n", d->sriov_total);
		attr(dfd, d, "sriov_numvfs", 0644, "%d\n", d->sriov_num);
		attr(dfd, d, "sriov_drivers_autoprobe", 0644, "1\n");
	}
	if (d->vf_of >= 0) {
		struct dev *pf = &h->devs[d->vf_of];
		char *l = xasprintf("%s/virtfn%d", pf->path, d->vf_n);

		attr_link(dfd, d, "physfn", pf->path);
		link_rel(l, d->path);
		free(l);
	}
	close(dfd);

	{
		char *l = xasprintf("sys/bus/pci/devices/%s", d->name);

		link_rel(l, d->path);
		free(l);
	}
	if (d->driver) {
		char *dir = xasprintf("sys/bus/pci/drivers/%s", d->driver);
		char *l = xasprintf("%s/%s", dir, d->name);

		if (mkdirat(rootfd, dir, 0755) == 0) {
			static const char *const files[] = { "bind", "unbind", "new_id", "remove_id" };
			int drvfd = openat(rootfd, dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);

			if (drvfd < 0)
				die("%s/%s: %s", out_path, dir, strerror(errno));
			for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
				putat(drvfd, dir, files[i], "", 0, 0200);
			close(drvfd);
		} else if (errno != EEXIST) {
			die("%s/%s: %s", out_path, dir, strerror(errno));
		}
		link_rel(l, d->path);
		free(l);
		free(dir);
	}
	if (d->group >= 0) {
		struct group *g = find_group(h, d->group);

		if (!g->nodevdir) {
			char *l = xasprintf("sys/kernel/iommu_groups/%d/devices/%s", d->group, d->name);

			link_rel(l, d->path);
			free(l);
		}
	}
	if (d->slotname) {
		char *p = xasprintf("sys/bus/pci/slots/%s/address", d->slotname);
		char *a = xasprintf("%04x:%02x:%02x\n", d->dom, d->bus, d->slot);

		puts_(p, a);
		free(p);
		free(a);
	}
}

static void write_groups(struct host *h)
{
	const char *deftype = h->group_type ? h->group_type : "DMA";
	const char *regions = h->iommu == IOMMU_AMD ?
		"0x00000000fee00000 0x00000000fef00000 msi\n"
		"0x000000fd00000000 0x000000ffffffffff reserved\n" :
		"0x00000000fee00000 0x00000000feefffff msi\n";

	mkdirs("sys/kernel/iommu_groups");
	for (int i = 0; i < h->ngroups; i++) {
		struct group *g = &h->groups[i];
		char *dir = xasprintf("sys/kernel/iommu_groups/%d", g->id);
		char *t = xasprintf("%s\n", g->type ? g->type : deftype);
		int gfd;

		if (mkdirat(rootfd, dir, 0755))
			die("%s/%s: %s", out_path, dir, strerror(errno));
		gfd = openat(rootfd, dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
		if (gfd < 0)
			die("%s/%s: %s", out_path, dir, strerror(errno));
		putat(gfd, dir, "type", t, strlen(t), 0644);
		putat(gfd, dir, "reserved_regions", regions, strlen(regions), 0444);
		if (!g->nodevdir && mkdirat(gfd, "devices", 0755))
			die("%s/%s/devices: %s", out_path, dir, strerror(errno));
		close(gfd);
		free(t);
		free(dir);
	}
}

static void write_iommu(struct host *h)
{
	int units = h->iommu_units ? h->iommu_units : 1, amd = 0;

	mkdirs("sys/class/iommu");
	if (h->iommu == IOMMU_NONE)
		return;
	for (int u = 0; u < units; u++) {
		const char *amd_dev = NULL;
		char *dir, *p;

		/* AMD-Vi units sit under their PCI functions (class 0806),
		 * one per root complex; Intel's are virtual devices. */
		while (h->iommu == IOMMU_AMD && amd < h->ndevs) {
			const struct dev *d = &h->devs[amd++];

			if (d->vendor == 0x1022 && (d->cls >> 8) == 0x0806) {
				amd_dev = d->path;
				break;
			}
		}
		if (h->iommu == IOMMU_INTEL) {
			dir = xasprintf("sys/devices/virtual/iommu/dmar%d", u);
			p = xasprintf("%s/intel-iommu/version", dir);
			puts_(p, "1:0\n");
			free(p);
			p = xasprintf("%s/intel-iommu/cap", dir);
			puts_(p, "d2008c40660462\n");
			free(p);
			p = xasprintf("%s/intel-iommu/ecap", dir);
			puts_(p, "f050da\n");
		} else {
			dir = amd_dev ? xasprintf("%s/iommu/ivhd%d", amd_dev, u) :
				      xasprintf("sys/devices/virtual/iommu/ivhd%d", u);
			p = xasprintf("%s/amd-iommu/cap", dir);
			puts_(p, "0x00190040\n");
			free(p);
			p = xasprintf("%s/amd-iommu/features", dir);
			puts_(p, "0x58f77ef22294a5a:0x5d\n");
		}
		free(p);
		p = xasprintf("%s/devices", dir);
		mkdirs(p);
		free(p);
		p = xasprintf("sys/class/iommu/%s", strrchr(dir, '/') + 1);
		link_rel(p, dir);
		free(p);
		free(dir);
	}
}

/* A minimal, valid ACPI table: the 36-byte header (checksum included) and,
 * for DMAR and IVRS, the fields the kernel reads first. */
static void write_acpi(struct host *h)
{
	for (int i = 0; i < h->nacpi; i++) {
		uint8_t t[48] = { 0 };
		size_t len = 36;
		uint8_t sum = 0;
		char *p;

		memcpy(t, h->acpi[i], 4);
		if (!strcmp(h->acpi[i], "DMAR")) {
			len = 48;
			t[36] = 45;		/* host address width - 1 */
			t[37] = 0x01;		/* INTR_REMAP */
		} else if (!strcmp(h->acpi[i], "IVRS")) {
			len = 48;
			put32(t, 36, 0x00203040);	/* IVinfo: VA/PA sizes */
		}
		put32(t, 4, len);
		t[8] = 1;
		memcpy(t + 10, "VFIOWZ", 6);
		memcpy(t + 16, "FIXTURE ", 8);
		put32(t, 24, 1);
		memcpy(t + 28, "MKHS", 4);
		put32(t, 32, 1);
		for (size_t k = 0; k < len; k++)
			sum += t[k];
		t[9] = (uint8_t)(0x100 - sum);
		p = xasprintf("sys/firmware/acpi/tables/%s", h->acpi[i]);
		put(p, t, len, 0400);
		free(p);
	}
}

static void write_efi(struct host *h)
{
	if (!h->efi) {
		if (h->nefivars)
			die("efivar given but efi is not yes");
		return;
	}
	puts_("sys/firmware/efi/fw_platform_size", "64\n");
	mkdirs("sys/firmware/efi/efivars");
	for (int i = 0; i < h->nefivars; i++) {
		struct buf b = { 0 };
		uint8_t attrs[4] = { 0x06, 0, 0, 0 };	/* BOOTSERVICE|RUNTIME */
		char *p;

		buf_add(&b, attrs, 4);
		for (const char *s = h->efivars[i].val; ; s++) {
			char u[2] = { *s, 0 };

			buf_add(&b, u, 2);
			if (!*s)
				break;
		}
		p = xasprintf("sys/firmware/efi/efivars/%s", h->efivars[i].key);
		put(p, b.data, b.len, 0644);
		free(p);
		free(b.data);
	}
}

static void write_cpuinfo(struct host *h)
{
	struct buf b = { 0 };
	bool amd = !strcmp(h->cpu_vendor, "AuthenticAMD");

	for (int i = 0; i < h->cpus; i++) {
		buf_printf(&b, "processor\t: %d\n", i);
		buf_printf(&b, "vendor_id\t: %s\n", h->cpu_vendor);
		buf_printf(&b, "cpu family\t: %d\n", h->family ? h->family : (amd ? 25 : 6));
		buf_printf(&b, "model\t\t: %d\n", h->model);
		buf_printf(&b, "model name\t: %s\n", h->cpu_model);
		buf_printf(&b, "stepping\t: %d\n", h->stepping);
		buf_printf(&b, "cpu MHz\t\t: %d.000\n", h->mhz ? h->mhz : 3000);
		buf_printf(&b, "physical id\t: 0\nsiblings\t: %d\ncore id\t\t: %d\n", h->cpus, i);
		buf_printf(&b, "cpu cores\t: %d\napicid\t\t: %d\ninitial apicid\t: %d\n", h->cpus, i, i);
		buf_printf(&b, "fpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: 16\nwp\t\t: yes\n");
		buf_printf(&b, "flags\t\t: %s\n", h->cpu_flags ? h->cpu_flags : "");
		buf_printf(&b, "bugs\t\t: %s\n", h->cpu_bugs ? h->cpu_bugs : "");
		buf_printf(&b, "bogomips\t: %d.00\n", 2 * (h->mhz ? h->mhz : 3000));
		buf_printf(&b, "clflush size\t: 64\ncache_alignment\t: 64\n");
		buf_printf(&b, "address sizes\t: %s\npower management:\n\n",
			   amd ? "48 bits physical, 48 bits virtual" : "39 bits physical, 48 bits virtual");
	}
	put("proc/cpuinfo", b.data, b.len, 0444);
	free(b.data);
}

/* gzip with stored deflate blocks: readable by zcat and zlib, no zlib here. */
static void gzip_stored(struct buf *out, const char *data, size_t len)
{
	static uint32_t table[256];
	static const uint8_t hdr[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	uint32_t crc = 0xffffffff;
	uint8_t tail[8];
	size_t off = 0;

	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	buf_add(out, hdr, sizeof(hdr));
	do {
		size_t n = len - off > 65535 ? 65535 : len - off;
		uint8_t bh[5] = { off + n == len, n & 0xff, n >> 8,
				  ~n & 0xff, (~n >> 8) & 0xff };

		buf_add(out, bh, 5);
		buf_add(out, data + off, n);
		off += n;
	} while (off < len);
	for (size_t i = 0; i < len; i++)
		crc = table[(crc ^ (uint8_t)data[i]) & 0xff] ^ (crc >> 8);
	crc ^= 0xffffffff;
	put32(tail, 0, crc);
	put32(tail, 4, (uint32_t)len);
	buf_add(out, tail, 8);
}

static void write_blob(const char *path, struct blob *b)
{
	size_t len = b->data.len;
	const char *data = b->data.data ? b->data.data : "";

	if (b->noeol && len && data[len - 1] == '\n')
		len--;
	if (b->gzip) {
		struct buf z = { 0 };

		gzip_stored(&z, data, len);
		put(path, z.data, z.len, b->mode);
		free(z.data);
	} else {
		put(path, data, len, b->mode);
	}
}

static struct dev *dev_named(struct host *h, const char *bdf, int line)
{
	int i = find_dev(h, bdf);

	if (i < 0)
		bad(line, "no dev %s described", bdf);
	return &h->devs[i];
}

static void put_num(const char *dir, const char *name, unsigned long long v)
{
	char *p = xasprintf("%s/%s", dir, name), *s = xasprintf("%llu\n", v);

	puts_(p, s);
	free(p);
	free(s);
}

/* Disks as the block layer shows them: the device directory below its
 * controller, sys/block/NAME and sys/class/block/NAME links to it. */
static void write_blocks(struct host *h)
{
	int scsi = 0;

	for (int i = 0; i < h->nblks; i++) {
		struct blk *b = &h->blks[i];
		struct dev *d = dev_named(h, b->dev, b->line);
		char *ctl, *disk, *p;
		unsigned long long sectors = (unsigned long long)b->size_gib << 21, start = 2048;
		size_t nl = strlen(b->name);
		bool digit = nl && b->name[nl - 1] >= '0' && b->name[nl - 1] <= '9';

		if (!strncmp(b->name, "nvme", 4)) {
			ctl = xasprintf("%s/nvme/nvme%d", d->path, atoi(b->name + 4));
			disk = xasprintf("%s/%s", ctl, b->name);
		} else {
			ctl = xasprintf("%s/ata%d/host%d/target%d:0:0/%d:0:0:0", d->path, scsi + 1, scsi, scsi, scsi);
			disk = xasprintf("%s/block/%s", ctl, b->name);
			scsi++;
		}
		p = xasprintf("%s/model", ctl);
		puts_(p, b->model ? b->model : "FIXTURE DISK");
		free(p);
		put_num(disk, "size", sectors);
		put_num(disk, "removable", (unsigned)b->removable);
		put_num(disk, "ro", 0);
		put_num(disk, "queue/rotational", (unsigned)b->rotational);
		p = xasprintf("%s/holders", disk);
		mkdirs(p);
		free(p);
		p = xasprintf("%s/device", disk);
		link_rel(p, ctl);
		free(p);
		for (int k = 1; k <= b->parts; k++) {
			char *pname = xasprintf("%s%s%d", b->name, digit ? "p" : "", k);
			char *pdir = xasprintf("%s/%s", disk, pname), *cls;
			unsigned long long size = k == 1 ? 1ull << 21
					: (sectors - 4096 - (1ull << 21)) / (unsigned)(b->parts - 1) / 2048 * 2048;

			put_num(pdir, "partition", (unsigned)k);
			put_num(pdir, "start", start);
			put_num(pdir, "size", size);
			start += size;
			p = xasprintf("%s/holders", pdir);
			mkdirs(p);
			free(p);
			cls = xasprintf("sys/class/block/%s", pname);
			link_rel(cls, pdir);
			free(cls);
			free(pname);
			free(pdir);
		}
		for (char *hl = b->holders, *next; hl && *hl; hl = next) {
			char *item, *colon, *dir;
			long part;

			next = hl + strcspn(hl, ",");
			item = xasprintf("%.*s", (int)(next - hl), hl);
			if (*next)
				next++;
			colon = strchr(item, ':');
			if (!colon || !colon[1])
				bad(b->line, "holders wants PART:NAME");
			*colon = 0;
			part = (long)parse_num(item, 10, (unsigned long)b->parts, "holders part", b->line);
			dir = part ? xasprintf("%s/%s%s%ld/holders/%s", disk, b->name, digit ? "p" : "", part, colon + 1)
				   : xasprintf("%s/holders/%s", disk, colon + 1);
			{
				/* A link to the holder, as sysfs has it. */
				char *t = xasprintf("sys/devices/virtual/block/%s", colon + 1);

				link_rel(dir, t);
				free(t);
			}
			free(dir);
			free(item);
		}
		p = xasprintf("sys/block/%s", b->name);
		link_rel(p, disk);
		free(p);
		p = xasprintf("sys/class/block/%s", b->name);
		link_rel(p, disk);
		free(p);
		free(ctl);
		free(disk);
	}
}

static struct netif *net_named(struct host *h, const char *name, int upto)
{
	for (int i = 0; i < upto; i++)
		if (!strcmp(h->nets[i].name, name))
			return &h->nets[i];
	return NULL;
}

/* Network interfaces: BDF/net/IF with a device link, or virtual ones with
 * lower_IF links (and brif/IF for a bridge); sys/class/net/IF. */
static void write_nets(struct host *h)
{
	for (int i = 0; i < h->nnets; i++) {
		struct netif *f = &h->nets[i];
		char *p;

		if (f->dev) {
			struct dev *d = dev_named(h, f->dev, f->line);

			f->path = xasprintf("%s/net/%s", d->path, f->name);
			p = xasprintf("%s/device", f->path);
			link_rel(p, d->path);
			free(p);
		} else {
			f->path = xasprintf("sys/devices/virtual/net/%s", f->name);
		}
		p = xasprintf("%s/address", f->path);
		if (f->mac) {
			char *m = xasprintf("%s\n", f->mac);

			puts_(p, m);
			free(m);
		} else {
			char m[32];

			snprintf(m, sizeof(m), "02:00:00:00:%02x:%02x\n", (i >> 8) & 0xff, i & 0xff);
			puts_(p, m);
		}
		free(p);
		p = xasprintf("%s/operstate", f->path);
		puts_(p, "up\n");
		free(p);
		put_num(f->path, "ifindex", (unsigned)i + 1);
		for (char *l = f->lower, *next; l && *l; l = next) {
			char *name;
			struct netif *lo;

			next = l + strcspn(l, ",");
			name = xasprintf("%.*s", (int)(next - l), l);
			if (*next)
				next++;
			lo = net_named(h, name, i);
			if (!lo)
				bad(f->line, "net: lower %s is not described before", name);
			p = xasprintf("%s/lower_%s", f->path, name);
			link_rel(p, lo->path);
			free(p);
			if (f->bridge) {
				p = xasprintf("%s/brif/%s", f->path, name);
				link_rel(p, lo->path);
				free(p);
			}
			free(name);
		}
		p = xasprintf("sys/class/net/%s", f->name);
		link_rel(p, f->path);
		free(p);
	}
}

static void write_host(struct host *h)
{
	mkdirs("sys/bus/pci/devices");
	mkdirs("sys/bus/pci/drivers");
	mkdirs("sys/bus/pci/slots");
	put("sys/bus/pci/drivers_probe", "", 0, 0200);
	put("sys/bus/pci/rescan", "", 0, 0200);
	puts_("sys/bus/pci/drivers_autoprobe", "1\n");
	mkdirs("sys/devices");
	mkdirs("sys/kernel");
	mkdirs("sys/firmware/acpi/tables");
	mkdirs("proc/sys/kernel");
	mkdirs("etc");
	mkdirs("boot");

	write_groups(h);
	for (int i = 0; i < h->ndevs; i++)
		write_dev(h, &h->devs[i]);
	write_iommu(h);
	write_acpi(h);
	write_efi(h);
	write_blocks(h);
	write_nets(h);

	if (h->have_cpu)
		write_cpuinfo(h);
	if (h->cmdline) {
		char *s = xasprintf("%s\n", h->cmdline);

		put("proc/cmdline", s, strlen(s), 0444);
		free(s);
	}
	if (h->kernel) {
		char *s = xasprintf("Linux version %s %s\n", h->kernel, h->kbuild ? h->kbuild :
				    "(fixture@vfiowiz) (gcc (GCC) 12.2.0, GNU ld 2.40) #1 SMP PREEMPT_DYNAMIC");

		put("proc/version", s, strlen(s), 0444);
		free(s);
		s = xasprintf("%s\n", h->kernel);
		put("proc/sys/kernel/osrelease", s, strlen(s), 0444);
		free(s);
	}
	if (h->ndmi) {
		for (int i = 0; i < h->ndmi; i++) {
			char *p = xasprintf("sys/devices/virtual/dmi/id/%s", h->dmi[i].key);
			char *v = xasprintf("%s\n", h->dmi[i].val);

			puts_(p, v);
			free(p);
			free(v);
		}
		link_rel("sys/class/dmi/id", "sys/devices/virtual/dmi/id");
	}

	for (int i = 0; i < h->ndirs; i++)
		mkdirs(h->dirs[i]);
	for (int i = 0; i < h->nblobs; i++) {
		struct blob *b = &h->blobs[i];

		if (i == h->kconfig_blob) {
			if (h->kconfig_where & 1) {
				char *p = xasprintf("boot/config-%s", h->kernel);

				write_blob(p, b);
				free(p);
			}
			if (h->kconfig_where & 2) {
				b->gzip = true;
				b->mode = 0444;
				write_blob("proc/config.gz", b);
			}
			continue;
		}
		write_blob(b->path, b);
		if (!strcmp(b->path, "usr/lib/os-release"))
			link_rel("etc/os-release", "usr/lib/os-release");
	}
	for (int i = 0; i < h->nlinks; i++) {
		mkparent(h->links[i].key);
		link_at(rootfd, ".", h->links[i].key, h->links[i].val);
	}
}

int main(int argc, char **argv)
{
	struct host h = { 0 };

	if (argc != 3) {
		fprintf(stderr, "usage: mkhost DESC.host OUTDIR\n");
		return 2;
	}
	desc_path = argv[1];
	out_path = argv[2];
	/* Modes are given exactly (0400 ACPI tables, 0200 bind files). */
	umask(0);
	parse_file(&h, desc_path);
	resolve(&h);

	{
		/* mkdir -p OUTDIR */
		char *p = xstrdup(out_path);

		for (char *s = p + 1; ; s++) {
			if (*s && *s != '/')
				continue;
			char c = *s;

			*s = 0;
			if (mkdir(p, 0755) && errno != EEXIST)
				die("%s: %s", p, strerror(errno));
			if (!c)
				break;
			*s = c;
		}
		free(p);
	}
	rootfd = open(out_path, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (rootfd < 0)
		die("%s: %s", out_path, strerror(errno));
	{
		/* Refuse to mix a new host into an old one. */
		int fd = dup(rootfd);
		DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *e;

		if (!dir)
			die("%s: %s", out_path, strerror(errno));
		while ((e = readdir(dir)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				die("%s: not empty (remove it first)", out_path);
		closedir(dir);
	}
	write_host(&h);
	close(rootfd);
	return 0;
}
