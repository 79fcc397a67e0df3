/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vm_libvirt.c - the libvirt back end of the VM step (docs/formats.md section 6).
 *
 * A new domain starts from templates/libvirt-<os>.xml; an existing one from
 * what libvirt holds.  Both are edited as trees with libxml2, written to a
 * file of ours (VW_LIBVIRT_DIR/NAME.xml) and defined by `virsh define`.
 */
#include "vmplan.h"
#include "template.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlsave.h>

#include "bars.h"
#include "exec.h"
#include "storage.h"

#define XC(s) ((const xmlChar *)(s))
#define MAX_DOMAIN_XML (4u << 20)

/* Written above the domain in our file (not translated: it goes to disk). */
static const char header[] =
	" Written by vfiowiz, defined with virsh define.  libvirt keeps its own copy:\n"
	"     change the domain with virsh edit; vfiowiz reads it back from libvirt. ";

/* ---- small tree helpers --------------------------------------------------- */

static bool is_elem(const xmlNode *n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, XC(name)) == 0;
}

static xmlNode *child(xmlNode *parent, const char *name)
{
	for (xmlNode *n = parent ? parent->children : NULL; n; n = n->next)
		if (is_elem(n, name))
			return n;
	return NULL;
}

/* Attribute value compare; a missing attribute equals nothing. */
static bool attr_is(xmlNode *n, const char *attr, const char *value)
{
	xmlChar *v = xmlGetProp(n, XC(attr));
	bool eq = v && xmlStrcmp(v, XC(value)) == 0;

	xmlFree(v);
	return eq;
}

static xmlNode *child_with(xmlNode *parent, const char *name, const char *attr, const char *value)
{
	for (xmlNode *n = parent ? parent->children : NULL; n; n = n->next)
		if (is_elem(n, name) && attr_is(n, attr, value))
			return n;
	return NULL;
}

static long attr_long(xmlNode *n, const char *attr, long dflt)
{
	xmlChar *v = xmlGetProp(n, XC(attr));
	char *end;
	long r;

	if (!v)
		return dflt;
	r = strtol((const char *)v, &end, 0);
	if (end == (char *)v || *end)
		r = dflt;
	xmlFree(v);
	return r;
}

static void set_attrf(xmlNode *n, const char *attr, const char *fmt, ...) VW_PRINTF(3, 4);
static void set_attrf(xmlNode *n, const char *attr, const char *fmt, ...)
{
	struct vw_buf b = VW_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	vw_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	xmlSetProp(n, XC(attr), XC(b.data));
	vw_buf_done(&b);
}

static void set_text(xmlNode *n, const char *text)
{
	xmlNodeSetContent(n, NULL);
	xmlNodeAddContent(n, XC(text));
}

static void drop(xmlNode *n)
{
	if (n) {
		xmlUnlinkNode(n);
		xmlFreeNode(n);
	}
}

static xmlNode *new_child(xmlNode *parent, xmlNode *before, const char *name)
{
	xmlNode *n = xmlNewNode(NULL, XC(name));

	if (before)
		xmlAddPrevSibling(before, n);
	else
		xmlAddChild(parent, n);
	return n;
}

/* ---- reading ----------------------------------------------------------------- */

static int parse_xml(xmlDoc **out, const char *data, size_t len, const char *what,
		     struct vw_err *err)
{
	xmlDoc *doc;
	xmlNode *root;

	*out = NULL;
	if (len > MAX_DOMAIN_XML)
		return vw_err_set(err, -EFBIG, _("%s is too large"), what);
	doc = xmlReadMemory(data, (int)len, NULL, NULL,
			    XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR |
				    XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlGetLastError();

		return vw_err_set(err, -EINVAL, _("%s is not valid XML: line %d: %s"), what,
				  e ? e->line : 0, e && e->message ? vw_strtrim(e->message) : "?");
	}
	/* No DTD of any kind: nothing from a hostile snapshot is expanded. */
	root = xmlDocGetRootElement(doc);
	if (doc->intSubset || doc->extSubset || !is_elem(root, "domain") || root->ns) {
		xmlFreeDoc(doc);
		return vw_err_set(err, -EINVAL, _("%s is not a libvirt domain"), what);
	}
	/* Comments and processing instructions around the root are libvirt's
	 * ("WARNING: THIS IS AN AUTO-GENERATED FILE") or the template's own. */
	for (xmlNode *n = doc->children, *next; n; n = next) {
		next = n->next;
		if (n != root)
			drop(n);
	}
	*out = doc;
	return 0;
}

static int load_template(xmlDoc **doc, const char *name, struct vw_err *err)
{
	char *text;
	size_t len;
	int rc = vw_template_load(name, &text, &len, err);

	if (rc < 0)
		return rc;
	rc = parse_xml(doc, text, len, name, err);
	free(text);
	return rc;
}

/* The existing domain: libvirt's answer on the live host, its file (or a
 * recorded dumpxml) under a sysroot. */
static int load_existing(xmlDoc **doc, const struct vw_sysroot *sr, const char *name,
			 struct vw_err *err)
{
	const char *argv[] = { "virsh", "dumpxml", "--inactive", "--security-info", name, NULL };
	char *rel = vw_xasprintf("etc/libvirt/qemu/%s.xml", name), *data = NULL;
	struct vw_exec_result res;
	size_t len = 0;
	int rc;

	*doc = NULL;
	if (!vw_sysroot_is_host(sr) && vw_sysroot_exists(sr, rel)) {
		rc = vw_sysroot_read(sr, rel, &data, &len, MAX_DOMAIN_XML, err);
		if (rc == 0)
			rc = parse_xml(doc, data, len, rel, err);
		free(data);
		free(rel);
		return rc;
	}
	free(rel);
	rc = vw_exec_run(sr, argv, &res, err);
	if (rc == 0 && res.status != 0)
		rc = vw_err_set(err, -ENOENT, _("libvirt has no domain named %s: %s"), name,
				vw_strtrim(res.output));
	else if (rc < 0)
		vw_err_prefix(err, _("cannot read the domain %s"), name);
	if (rc == 0)
		rc = parse_xml(doc, res.output, res.len, "virsh dumpxml", err);
	/* The output may hold the VNC password. */
	if (res.output)
		memset(res.output, 0, res.len);
	vw_exec_result_done(&res);
	return rc;
}

/* ---- the domain's parts ------------------------------------------------- */

/* Dirname of the template's disk source ("/var/lib/libvirt/images"). */
static char *template_image_dir(xmlNode *disk)
{
	xmlNode *src = child(disk, "source");
	xmlChar *file = src ? xmlGetProp(src, XC("file")) : NULL;
	char *dir = NULL, *slash;

	if (file && (slash = strrchr((char *)file, '/')) && slash != (char *)file) {
		dir = vw_xstrndup((const char *)file, (size_t)(slash - (char *)file));
	}
	xmlFree(file);
	return dir ? dir : vw_xstrdup("/var/lib/libvirt/images");
}

struct disk_plan {
	char *path;		/* absolute host path */
	bool create;		/* new qcow2 to create with qemu-img */
	long size_gib;
};

static int plan_disk(xmlNode *devices, const struct vw_vm_ctx *ctx, const char *ours,
		     struct disk_plan *dp, struct vw_err *err)
{
	const struct vw_vm_choices *vm = &ctx->choices->vm;
	xmlNode *disk = child_with(devices, "disk", "device", "disk"), *drv, *src, *tgt;
	char *dir;

	memset(dp, 0, sizeof(*dp));
	if (!disk)
		return vw_err_set(err, -EINVAL, _("the libvirt template has no disk"));
	dir = template_image_dir(disk);
	if (vm->storage_path[0])
		dp->path = vw_xstrdup(vm->storage_path);
	else
		dp->path = vw_xasprintf("%s/%s.qcow2", dir, vm->name);
	free(dir);
	if (dp->path[0] != '/')
		return vw_err_set(err, -EINVAL, _("the disk %s is not an absolute path"), dp->path);

	drv = child(disk, "driver");
	src = child(disk, "source");
	tgt = child(disk, "target");
	if (!drv || !src || !tgt)
		return vw_err_set(err, -EINVAL, _("the libvirt template's disk lacks driver, source or target"));
	switch (vm->storage_type) {
	case VW_STORAGE_QCOW2: {
		struct vw_image_info ii;
		char *mine = NULL;
		bool known = false;
		int rc;

		/* Ours from an earlier run names it: that run created the image. */
		if (vw_sysroot_read(ctx->sr, ours, &mine, NULL, MAX_DOMAIN_XML, NULL) == 0)
			known = strstr(mine, dp->path) != NULL;
		free(mine);
		dp->size_gib = vm->storage_size_gib > 0 ? vm->storage_size_gib : VW_VM_DEFAULT_DISK_GIB;
		if (!(known && vw_sysroot_exists(ctx->sr, dp->path))) {
			rc = vw_storage_check_new_image(ctx->sr, dp->path, (uint64_t)dp->size_gib << 30,
							&ii, err);
			if (rc < 0)
				return rc;
			dp->create = true;
		}
		xmlSetProp(disk, XC("type"), XC("file"));
		xmlSetProp(drv, XC("type"), XC("qcow2"));
		xmlUnsetProp(src, XC("dev"));
		xmlSetProp(src, XC("file"), XC(dp->path));
		break;
	}
	case VW_STORAGE_IMAGE: {
		struct vw_image_info ii;
		int rc = vw_storage_check_image(ctx->sr, dp->path, &ii, err);

		if (rc < 0)
			return rc;
		if (strcmp(ii.format, "qcow2") != 0 && strcmp(ii.format, "raw") != 0 && ii.format[0])
			return vw_err_set(err, -EINVAL,
					  _("%s is a %s image: convert it to qcow2 or raw first (qemu-img convert)"),
					  dp->path, ii.format);
		xmlSetProp(disk, XC("type"), XC("file"));
		xmlSetProp(drv, XC("type"), XC(ii.format[0] ? ii.format : "raw"));
		xmlUnsetProp(src, XC("dev"));
		xmlSetProp(src, XC("file"), XC(dp->path));
		break;
	}
	case VW_STORAGE_DISK: {
		int rc = vw_vm_check_whole_disk(ctx->sr, dp->path, err);

		if (rc < 0)
			return rc;
		xmlSetProp(disk, XC("type"), XC("block"));
		xmlSetProp(drv, XC("type"), XC("raw"));
		xmlSetProp(drv, XC("cache"), XC("none"));
		xmlSetProp(drv, XC("io"), XC("native"));
		xmlUnsetProp(src, XC("file"));
		xmlSetProp(src, XC("dev"), XC(dp->path));
		break;
	}
	}
	return 0;
}

static void set_sizes(xmlNode *root, const struct vw_vm_choices *vm)
{
	static const char *const mems[] = { "memory", "currentMemory" };
	char num[32];
	xmlNode *n, *cpu;

	for (size_t i = 0; i < VW_ARRAY_SIZE(mems); i++)
		if ((n = child(root, mems[i]))) {
			snprintf(num, sizeof(num), "%ld", vm->memory_mib);
			xmlSetProp(n, XC("unit"), XC("MiB"));
			set_text(n, num);
		}
	snprintf(num, sizeof(num), "%ld", vm->vcpus);
	if ((n = child(root, "vcpu")))
		set_text(n, num);
	cpu = child(root, "cpu");
	if ((n = child(cpu, "topology"))) {
		xmlSetProp(n, XC("sockets"), XC("1"));
		xmlSetProp(n, XC("dies"), XC("1"));
		xmlSetProp(n, XC("cores"), XC(num));
		xmlSetProp(n, XC("threads"), XC("1"));
	}
}

/* ---- Code 43 ----------------------------------------------------------------- */

/* True when the domain already hides KVM and sets a hyperv vendor_id (or
 * has no hyperv at all, for which vendor_id means nothing). */
static bool code43_done(xmlNode *root)
{
	xmlNode *features = child(root, "features");
	xmlNode *hidden = child(child(features, "kvm"), "hidden");
	xmlNode *hyperv = child(features, "hyperv");
	xmlNode *vid = child(hyperv, "vendor_id");

	return hidden && attr_is(hidden, "state", "on") && (!hyperv || (vid && attr_is(vid, "state", "on")));
}

/* Copy the Code 43 options of the Windows template into root. */
static int add_code43(xmlNode *root, struct vw_err *err)
{
	xmlDoc *tdoc;
	xmlNode *tfeat, *features, *kvm, *hyperv, *n;
	int rc = load_template(&tdoc, "libvirt-windows.xml", err);

	if (rc < 0)
		return rc;
	tfeat = child(xmlDocGetRootElement(tdoc), "features");
	features = child(root, "features");
	if (!features)
		features = new_child(root, child(root, "cpu"), "features");
	kvm = child(features, "kvm");
	if (!kvm)
		kvm = new_child(features, NULL, "kvm");
	drop(child(kvm, "hidden"));
	if ((n = child(child(tfeat, "kvm"), "hidden")))
		xmlAddChild(kvm, xmlDocCopyNode(n, root->doc, 1));
	hyperv = child(features, "hyperv");
	if (!hyperv)
		hyperv = new_child(features, kvm, "hyperv");
	if (!child(hyperv, "vendor_id") || !attr_is(child(hyperv, "vendor_id"), "state", "on")) {
		drop(child(hyperv, "vendor_id"));
		if ((n = child(child(tfeat, "hyperv"), "vendor_id")))
			xmlAddChild(hyperv, xmlDocCopyNode(n, root->doc, 1));
	}
	xmlFreeDoc(tdoc);
	return 0;
}

static void remove_code43(xmlNode *root)
{
	xmlNode *features = child(root, "features");

	drop(child(features, "kvm"));
	drop(child(child(features, "hyperv"), "vendor_id"));
}

static xmlNode *insertion_point(xmlNode *devices);

/* ---- VNC ------------------------------------------------------------------- */

static bool vnc_done(xmlNode *g, const char *password)
{
	xmlNode *listen = child(g, "listen");

	return attr_is(g, "autoport", "yes") && attr_is(g, "passwd", password) && listen &&
	       attr_is(listen, "type", "address") && attr_is(listen, "address", "127.0.0.1") &&
	       !child_with(g, "listen", "type", "network");
}

/* Loopback, autoport, password (NULL: none): on an existing <graphics type='vnc'>. */
static void vnc_set(xmlNode *g, const char *password)
{
	xmlNode *listen;

	xmlSetProp(g, XC("port"), XC("-1"));
	xmlSetProp(g, XC("autoport"), XC("yes"));
	if (password)
		xmlSetProp(g, XC("passwd"), XC(password));
	else
		xmlUnsetProp(g, XC("passwd"));
	xmlUnsetProp(g, XC("listen"));
	xmlUnsetProp(g, XC("websocket"));
	xmlUnsetProp(g, XC("socket"));
	while ((listen = child(g, "listen")))
		drop(listen);
	listen = new_child(g, g->children, "listen");
	xmlSetProp(listen, XC("type"), XC("address"));
	xmlSetProp(listen, XC("address"), XC("127.0.0.1"));
}

/* Returns 1 when the domain changed, 0 when it already had it, or < 0. */
static int plan_vnc_existing(xmlNode *devices, const char *password, struct vw_err *err)
{
	xmlNode *g = child_with(devices, "graphics", "type", "vnc"), *tg;
	xmlDoc *tdoc;
	int rc;

	if (g) {
		if (vnc_done(g, password))
			return 0;
		vnc_set(g, password);
		return 1;
	}
	rc = load_template(&tdoc, "libvirt-linux.xml", err);
	if (rc < 0)
		return rc;
	tg = child_with(child(xmlDocGetRootElement(tdoc), "devices"), "graphics", "type", "vnc");
	if (!tg) {
		xmlFreeDoc(tdoc);
		return vw_err_set(err, -EINVAL, _("the libvirt template has no VNC display"));
	}
	g = xmlDocCopyNode(tg, devices->doc, 1);
	xmlFreeDoc(tdoc);
	/* Where libvirt lists graphics: before the video devices. */
	if (child(devices, "video"))
		xmlAddPrevSibling(child(devices, "video"), g);
	else if (insertion_point(devices))
		xmlAddPrevSibling(insertion_point(devices), g);
	else
		xmlAddChild(devices, g);
	vnc_set(g, password);
	return 1;
}

/* ---- hostdevs ----------------------------------------------------------------- */

static bool hostdev_is(xmlNode *h, const struct vw_pci_dev *d)
{
	xmlNode *a = child(child(h, "source"), "address");

	return attr_is(h, "type", "pci") && a && attr_long(a, "domain", 0) == (long)d->domain &&
	       attr_long(a, "bus", -1) == (long)d->bus && attr_long(a, "slot", -1) == (long)d->dev &&
	       attr_long(a, "function", -1) == (long)d->func;
}

static xmlNode *find_hostdev(xmlNode *devices, const struct vw_pci_dev *d)
{
	for (xmlNode *n = devices->children; n; n = n->next)
		if (is_elem(n, "hostdev") && hostdev_is(n, d))
			return n;
	return NULL;
}

/* Highest PCI controller index or guest bus number in use. */
static long max_pci_bus(xmlNode *n)
{
	long max = 0;

	for (; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (is_elem(n, "controller") && attr_is(n, "type", "pci"))
			max = attr_long(n, "index", 0) > max ? attr_long(n, "index", 0) : max;
		if (is_elem(n, "address") && attr_is(n, "type", "pci") && attr_long(n, "bus", 0) > max &&
		    !is_elem(n->parent, "source"))
			max = attr_long(n, "bus", 0);
		if (n->children) {
			long m = max_pci_bus(n->children);

			max = m > max ? m : max;
		}
	}
	return max;
}

/* Guest slots used on bus 0 (pc machines: no root ports). */
static void used_bus0_slots(xmlNode *n, bool used[32])
{
	for (; n; n = n->next) {
		if (is_elem(n, "address") && attr_is(n, "type", "pci") && !is_elem(n->parent, "source") &&
		    attr_long(n, "domain", 0) == 0 && attr_long(n, "bus", 0) == 0) {
			long s = attr_long(n, "slot", -1);

			if (s >= 0 && s < 32)
				used[s] = true;
		}
		if (n->children)
			used_bus0_slots(n->children, used);
	}
}

/* New devices go before <memballoon>, where libvirt itself lists them. */
static xmlNode *insertion_point(xmlNode *devices)
{
	return child(devices, "memballoon");
}

/* Add the unit's hostdevs.  Returns 1 when the domain changed, 0 when every
 * function was already there, or < 0. */
static int plan_hostdevs(xmlNode *root, const struct vw_vm_ctx *ctx, const struct vw_vm_slot *slots,
			 size_t nslots, struct vw_err *err)
{
	const struct vw_facts *f = ctx->facts;
	xmlNode *devices = child(root, "devices"), *os_type = child(child(root, "os"), "type");
	xmlChar *machine = os_type ? xmlGetProp(os_type, XC("machine")) : NULL;
	bool q35 = machine && strstr((const char *)machine, "q35"), all = true;
	bool used0[32] = { true, true, true };	/* host bridge, ISA/IDE, VGA */
	long bus;
	unsigned next0 = 3;

	xmlFree(machine);
	for (size_t s = 0; s < nslots; s++)
		for (size_t k = 0; k < slots[s].ndevs; k++)
			all = all && find_hostdev(devices, &f->devs[slots[s].devs[k]]);
	if (all)
		return 0;
	for (size_t s = 0; s < nslots; s++)
		for (size_t k = 0; k < slots[s].ndevs; k++)
			drop(find_hostdev(devices, &f->devs[slots[s].devs[k]]));

	bus = max_pci_bus(root->children);
	used_bus0_slots(root->children, used0);
	for (size_t s = 0; s < nslots; s++) {
		const struct vw_vm_slot *sl = &slots[s];
		bool has_f0 = f->devs[sl->devs[0]].func == 0;
		long gbus = 0;
		unsigned gslot = 0;

		if (q35) {
			xmlNode *c = new_child(devices, insertion_point(devices), "controller");

			gbus = ++bus;
			if (gbus > 255)
				return vw_err_set(err, -ENOSPC, _("the domain has no free PCI bus left"));
			xmlSetProp(c, XC("type"), XC("pci"));
			set_attrf(c, "index", "%ld", gbus);
			xmlSetProp(c, XC("model"), XC("pcie-root-port"));
		} else {
			while (next0 < 32 && used0[next0])
				next0++;
			if (next0 >= 32)
				return vw_err_set(err, -ENOSPC, _("the domain has no free PCI slot left"));
			gslot = next0;
			used0[next0] = true;
		}
		for (size_t k = 0; k < sl->ndevs; k++) {
			const struct vw_pci_dev *d = &f->devs[sl->devs[k]];
			unsigned gfunc = has_f0 ? d->func : (unsigned)k;
			xmlNode *h = new_child(devices, insertion_point(devices), "hostdev");
			xmlNode *drv, *src, *a;

			xmlSetProp(h, XC("mode"), XC("subsystem"));
			xmlSetProp(h, XC("type"), XC("pci"));
			xmlSetProp(h, XC("managed"), XC("yes"));
			drv = xmlNewChild(h, NULL, XC("driver"), NULL);
			xmlSetProp(drv, XC("name"), XC("vfio"));
			src = xmlNewChild(h, NULL, XC("source"), NULL);
			a = xmlNewChild(src, NULL, XC("address"), NULL);
			set_attrf(a, "domain", "0x%04x", d->domain);
			set_attrf(a, "bus", "0x%02x", d->bus);
			set_attrf(a, "slot", "0x%02x", d->dev);
			set_attrf(a, "function", "0x%x", d->func);
			a = xmlNewChild(h, NULL, XC("address"), NULL);
			xmlSetProp(a, XC("type"), XC("pci"));
			xmlSetProp(a, XC("domain"), XC("0x0000"));
			set_attrf(a, "bus", "0x%02lx", gbus);
			set_attrf(a, "slot", "0x%02x", gslot);
			set_attrf(a, "function", "0x%x", gfunc);
			if (gfunc == 0 && sl->ndevs > 1)
				xmlSetProp(a, XC("multifunction"), XC("on"));
		}
	}
	return 1;
}

/* The choices' mediated devices, by UUID (vw_mdev_uuid); libvirt gives
 * them a guest address.  Returns 1 when the domain changed, else 0. */
static int plan_mdevs(xmlNode *root, const struct vw_vm_ctx *ctx)
{
	xmlNode *devices = child(root, "devices");
	int changed = 0;

	for (size_t k = 0; k < ctx->choices->nmdevs; k++) {
		char uuid[37];
		bool have = false;
		xmlNode *h, *src, *a;

		vw_mdev_uuid(ctx->choices, k, uuid);
		for (xmlNode *n = devices->children; n && !have; n = n->next) {
			xmlChar *u;

			if (!is_elem(n, "hostdev") || !(a = child(child(n, "source"), "address")))
				continue;
			u = xmlGetProp(a, XC("uuid"));
			have = u && !xmlStrcmp(u, XC(uuid));
			xmlFree(u);
		}
		if (have)
			continue;
		h = new_child(devices, insertion_point(devices), "hostdev");
		xmlSetProp(h, XC("mode"), XC("subsystem"));
		xmlSetProp(h, XC("type"), XC("mdev"));
		xmlSetProp(h, XC("model"), XC("vfio-pci"));
		xmlSetProp(h, XC("display"), XC("off"));
		src = xmlNewChild(h, NULL, XC("source"), NULL);
		a = xmlNewChild(src, NULL, XC("address"), NULL);
		xmlSetProp(a, XC("uuid"), XC(uuid));
		changed = 1;
	}
	return changed;
}

/* The choices' NVIDIA vGPU VFs (vendor-specific model): PCI hostdevs that
 * libvirt must not rebind (managed='no': nvidia is their VFIO driver);
 * libvirt gives them a guest address.  Returns 1 when the domain changed. */
static int plan_vgpus(xmlNode *root, const struct vw_vm_ctx *ctx)
{
	xmlNode *devices = child(root, "devices");
	int changed = 0;

	for (size_t k = 0; k < ctx->choices->nvgpus; k++) {
		const char *type;
		char addr[16];
		int d;
		xmlNode *h, *src, *a;

		if (!vw_mdev_split(ctx->choices->vgpus[k], addr, &type) ||
		    (d = vw_facts_find_dev(ctx->facts, addr)) < 0 || find_hostdev(devices, &ctx->facts->devs[d]))
			continue;
		h = new_child(devices, insertion_point(devices), "hostdev");
		xmlSetProp(h, XC("mode"), XC("subsystem"));
		xmlSetProp(h, XC("type"), XC("pci"));
		xmlSetProp(h, XC("managed"), XC("no"));
		src = xmlNewChild(h, NULL, XC("source"), NULL);
		a = xmlNewChild(src, NULL, XC("address"), NULL);
		set_attrf(a, "domain", "0x%04x", ctx->facts->devs[d].domain);
		set_attrf(a, "bus", "0x%02x", ctx->facts->devs[d].bus);
		set_attrf(a, "slot", "0x%02x", ctx->facts->devs[d].dev);
		set_attrf(a, "function", "0x%x", ctx->facts->devs[d].func);
		changed = 1;
	}
	return changed;
}

/* ---- large BARs ------------------------------------------------------------ */

#define QEMU_NS "http://libvirt.org/schemas/domain/qemu/1.0"

/* libvirt's version on the host as major * 1000 + minor, 0 unknown. */
static long libvirt_version(const struct vw_sysroot *sr)
{
	const char *argv[] = { "virsh", "--version", NULL };
	struct vw_exec_result res;
	unsigned maj, min;
	long v = 0;

	if (vw_exec_run(sr, argv, &res, NULL) == 0 && res.status == 0 &&
	    sscanf(res.output, "%u.%u", &maj, &min) == 2 && maj < 1000 && min < 1000)
		v = (long)maj * 1000 + min;
	vw_exec_result_done(&res);
	return v;
}

/* Set "-OPT VALUE" in <qemu:commandline>, in place of an argument starting
 * with key.  Returns true when the domain changed. */
static bool qemu_arg_set(xmlNode *root, const char *opt, const char *key, const char *value)
{
	xmlNs *ns = xmlSearchNsByHref(root->doc, root, XC(QEMU_NS));
	xmlNode *cl = NULL, *a;

	if (!ns)
		ns = xmlNewNs(root, XC(QEMU_NS), XC("qemu"));
	for (xmlNode *n = root->children; n; n = n->next)
		if (is_elem(n, "commandline") && n->ns == ns)
			cl = n;
	if (!cl)
		cl = xmlNewChild(root, ns, XC("commandline"), NULL);
	for (xmlNode *n = cl->children, *next; n; n = next) {
		xmlChar *v = is_elem(n, "arg") ? xmlGetProp(n, XC("value")) : NULL;

		next = n->next;
		if (v && vw_startswith((const char *)v, key)) {
			xmlNode *prev = n->prev;
			bool same = xmlStrcmp(v, XC(value)) == 0 && is_elem(prev, "arg") &&
				    attr_is(prev, "value", opt);

			xmlFree(v);
			if (same)
				return false;
			if (is_elem(prev, "arg") && attr_is(prev, "value", opt))
				drop(prev);
			drop(n);
			continue;
		}
		xmlFree(v);
	}
	a = xmlNewChild(cl, ns, XC("arg"), NULL);
	xmlSetProp(a, XC("value"), XC(opt));
	a = xmlNewChild(cl, ns, XC("arg"), NULL);
	xmlSetProp(a, XC("value"), XC(value));
	return true;
}

/* The host's physical address width for the guest: <maxphysaddr
 * mode='passthrough'/> (libvirt 8.7 and later, host-passthrough only), or
 * QEMU's host-phys-bits through <qemu:commandline> on older libvirt. */
static bool set_phys_bits(xmlNode *root, long version)
{
	xmlNode *cpu = child(root, "cpu"), *mp;
	bool changed = false;

	if (!cpu) {
		cpu = new_child(root, child(root, "clock"), "cpu");
		changed = true;
	}
	if (!attr_is(cpu, "mode", "host-passthrough")) {
		xmlSetProp(cpu, XC("mode"), XC("host-passthrough"));
		xmlSetProp(cpu, XC("check"), XC("none"));
		drop(child(cpu, "model"));
		drop(child(cpu, "vendor"));
		changed = true;
	}
	if (version && version < 8007)
		return qemu_arg_set(root, "-global", "host-x86_64-cpu.host-phys-bits=",
				    "host-x86_64-cpu.host-phys-bits=on") || changed;
	mp = child(cpu, "maxphysaddr");
	if (mp && attr_is(mp, "mode", "passthrough") && !xmlHasProp(mp, XC("limit")))
		return changed;
	drop(mp);
	mp = xmlNewNode(NULL, XC("maxphysaddr"));
	if (child(cpu, "topology"))
		xmlAddNextSibling(child(cpu, "topology"), mp);
	else
		xmlAddChild(cpu, mp);
	xmlSetProp(mp, XC("mode"), XC("passthrough"));
	return true;
}

static bool is_q35_efi(xmlNode *root)
{
	xmlNode *os = child(root, "os"), *type = child(os, "type");
	xmlChar *m = type ? xmlGetProp(type, XC("machine")) : NULL;
	bool q35 = m && strstr((const char *)m, "q35");

	xmlFree(m);
	return q35 && (attr_is(os, "firmware", "efi") || child(os, "loader"));
}

/* The VM side of large BARs.  Returns 1 when the domain changed, 0 when it
 * had it all (or the BARs need nothing), or < 0. */
static int plan_bars(xmlNode *root, const struct vw_vm_ctx *ctx, struct vw_vm_info *info,
		     struct vw_err *err)
{
	struct vw_vm_bars b;
	char max[32], *fw;
	long version;
	bool changed;

	vw_vm_bars_get(ctx->facts, ctx->unit, &b);
	if (b.large && !is_q35_efi(root))
		return vw_err_set(err, -EINVAL,
				  _("the domain %s is not a q35 machine with OVMF (UEFI): a %s BAR cannot be mapped there; create a new VM instead"),
				  ctx->choices->vm.name, vw_size_text(max, sizeof(max), b.max));
	if (!b.mmio_mb)
		return 0;
	version = libvirt_version(ctx->sr);
	if (version && version < 8007)
		vw_vm_info_note(info, _("libvirt %ld.%ld is older than 8.7 and has no <maxphysaddr>: the host's physical address width is passed to QEMU with -global host-x86_64-cpu.host-phys-bits=on in <qemu:commandline>."),
				version / 1000, version % 1000);
	else if (!version)
		vw_vm_info_note(info, _("libvirt's version could not be read: <maxphysaddr mode='passthrough'/> needs libvirt 8.7 or later."));
	changed = set_phys_bits(root, version);
	fw = vw_vm_mmio_fwcfg(&b);
	changed |= qemu_arg_set(root, "-fw_cfg", "name=opt/ovmf/X-PciMmio64Mb,", fw);
	free(fw);
	return changed;
}

/* ---- installation media -------------------------------------------------- */

/* The installer and the virtio-win ISO as SATA CD-ROMs after the disk; the
 * installer boots first, then the disk (per-device boot order, so the
 * <os><boot dev=...> entries go). */
static int plan_cdroms(xmlNode *root, const struct vw_vm_ctx *ctx, struct vw_err *err)
{
	const struct vw_vm_choices *vm = &ctx->choices->vm;
	const char *isos[] = { vm->install_iso, vm->virtio_iso };
	const char *what[] = { N_("installer ISO"), N_("virtio-win ISO") };
	xmlNode *devices = child(root, "devices"), *os = child(root, "os"), *disk, *after, *b;
	char tdev[] = "sda";
	int order = 1, rc;

	if (!vm->install_iso[0] && !vm->virtio_iso[0])
		return 0;
	disk = child_with(devices, "disk", "device", "disk");
	for (size_t i = 0; i < VW_ARRAY_SIZE(isos); i++)
		if (isos[i][0] && (rc = vw_vm_check_iso(ctx->sr, isos[i], _(what[i]), err)) < 0)
			return rc;
	while ((b = child(os, "boot")))
		drop(b);
	after = disk;
	for (size_t i = 0; i < VW_ARRAY_SIZE(isos); i++) {
		xmlNode *cd, *n;

		if (!isos[i][0])
			continue;
		cd = xmlNewNode(NULL, XC("disk"));
		if (after)
			xmlAddNextSibling(after, cd);
		else
			xmlAddChild(devices, cd);
		after = cd;
		xmlSetProp(cd, XC("type"), XC("file"));
		xmlSetProp(cd, XC("device"), XC("cdrom"));
		n = xmlNewChild(cd, NULL, XC("driver"), NULL);
		xmlSetProp(n, XC("name"), XC("qemu"));
		xmlSetProp(n, XC("type"), XC("raw"));
		n = xmlNewChild(cd, NULL, XC("source"), NULL);
		xmlSetProp(n, XC("file"), XC(isos[i]));
		n = xmlNewChild(cd, NULL, XC("target"), NULL);
		xmlSetProp(n, XC("dev"), XC(tdev));
		xmlSetProp(n, XC("bus"), XC("sata"));
		tdev[2]++;
		xmlNewChild(cd, NULL, XC("readonly"), NULL);
		if (i == 0) {
			n = xmlNewChild(cd, NULL, XC("boot"), NULL);
			set_attrf(n, "order", "%d", order++);
		}
	}
	if (disk) {
		drop(child(disk, "boot"));
		b = xmlNewNode(NULL, XC("boot"));
		if (child(disk, "target"))
			xmlAddNextSibling(child(disk, "target"), b);
		else
			xmlAddChild(disk, b);
		set_attrf(b, "order", "%d", order);
	}
	return 0;
}

/* ---- Looking Glass ------------------------------------------------------------- */

#define LG_TMPFILES "etc/tmpfiles.d/10-looking-glass.conf"
#define KVMFR_MODPROBE "etc/modprobe.d/kvmfr.conf"
#define KVMFR_LOAD "etc/modules-load.d/kvmfr.conf"
#define KVMFR_UDEV "etc/udev/rules.d/99-kvmfr.rules"

static xmlNode *lg_shmem(xmlNode *devices)
{
	return child_with(devices, "shmem", "name", "looking-glass");
}

/* <shmem name='looking-glass'><model type='ivshmem-plain'/><size unit='M'>N</size></shmem> */
static bool shmem_done(xmlNode *sh, long mib)
{
	xmlNode *size = child(sh, "size");
	xmlChar *v = size ? xmlNodeGetContent(size) : NULL;
	char want[32];
	bool ok;

	snprintf(want, sizeof(want), "%ld", mib);
	ok = attr_is(child(sh, "model"), "type", "ivshmem-plain") && attr_is(size, "unit", "M") && v &&
	     !xmlStrcmp(v, XC(want));
	xmlFree(v);
	return ok;
}

/* The qemu:commandline that maps /dev/kvmfr0 into the guest, or NULL. */
static xmlNode *kvmfr_cmdline(xmlNode *root)
{
	for (xmlNode *n = root->children; n; n = n->next)
		if (is_elem(n, "commandline") && n->ns && !xmlStrcmp(n->ns->href, XC(QEMU_NS)))
			for (xmlNode *a = n->children; a; a = a->next)
				if (is_elem(a, "arg")) {
					xmlChar *v = xmlGetProp(a, XC("value"));
					bool hit = v && strstr((const char *)v, "/dev/kvmfr0");

					xmlFree(v);
					if (hit)
						return n;
				}
	return NULL;
}

static void kvmfr_args(xmlNode *cl, xmlNs *ns, long mib)
{
	char obj[256];
	const char *args[] = {
		"-device", "{\"driver\":\"ivshmem-plain\",\"id\":\"shmem0\",\"memdev\":\"looking-glass\"}",
		"-object", obj,
	};

	snprintf(obj, sizeof(obj),
		 "{\"qom-type\":\"memory-backend-file\",\"id\":\"looking-glass\",\"mem-path\":\"/dev/kvmfr0\",\"size\":%lld,\"share\":true}",
		 (long long)mib << 20);
	for (size_t i = 0; i < VW_ARRAY_SIZE(args); i++)
		xmlSetProp(xmlNewChild(cl, ns, XC("arg"), NULL), XC("value"), XC(args[i]));
}

static bool kvmfr_done(xmlNode *cl, long mib)
{
	char want[64];
	bool ok = false;

	snprintf(want, sizeof(want), "\"size\":%lld,", (long long)mib << 20);
	for (xmlNode *a = cl->children; a; a = a->next)
		if (is_elem(a, "arg")) {
			xmlChar *v = xmlGetProp(a, XC("value"));

			ok = ok || (v && strstr((const char *)v, want));
			xmlFree(v);
		}
	return ok;
}

/* The domain's side: the shmem device, or the kvmfr command line (and no
 * shmem of the other kind).  Returns 1 when the domain changed, else 0. */
static int plan_lg_domain(xmlNode *root, const struct vw_vm_choices *vm)
{
	xmlNode *devices = child(root, "devices"), *sh = lg_shmem(devices), *cl = kvmfr_cmdline(root);
	long mib = vw_lg_size_mib(vm->lg_width, vm->lg_height);
	int changed = 0;

	if (vm->looking_glass == VW_LG_IVSHMEM) {
		if (cl) {
			drop(cl);
			changed = 1;
		}
		if (sh && shmem_done(sh, mib))
			return changed;
		drop(sh);
		sh = new_child(devices, insertion_point(devices), "shmem");
		xmlSetProp(sh, XC("name"), XC("looking-glass"));
		xmlSetProp(xmlNewChild(sh, NULL, XC("model"), NULL), XC("type"), XC("ivshmem-plain"));
		{
			char size[32];
			xmlNode *sz;

			snprintf(size, sizeof(size), "%ld", mib);
			sz = xmlNewChild(sh, NULL, XC("size"), XC(size));
			xmlSetProp(sz, XC("unit"), XC("M"));
		}
		return 1;
	}
	if (sh) {
		drop(sh);
		changed = 1;
	}
	if (cl && kvmfr_done(cl, mib))
		return changed;
	drop(cl);
	{
		xmlNs *ns = xmlSearchNsByHref(root->doc, root, XC(QEMU_NS));

		if (!ns)
			ns = xmlNewNs(root, XC(QEMU_NS), XC("qemu"));
		cl = xmlNewChild(root, ns, XC("commandline"), NULL);
		kvmfr_args(cl, ns, mib);
	}
	return 1;
}

/* The host's side: who may read the frames, and the kvmfr module's setup. */
static int plan_lg_host(struct vw_plan *p, const struct vw_vm_ctx *ctx, struct vw_vm_info *info,
			struct vw_err *err)
{
	const struct vw_choices *c = ctx->choices;
	const char *user = *c->access.ssh_user ? c->access.ssh_user : "root";
	long mib = vw_lg_size_mib(c->vm.lg_width, c->vm.lg_height);
	char *text;
	int r;

	if (c->vm.looking_glass == VW_LG_IVSHMEM) {
		struct vw_file_spec s = { .path = LG_TMPFILES, .mode = 0644,
			.why = N_("Looking Glass: the shared memory file exists at boot, readable by the client's user and the kvm group") };
		const char *post[] = { "systemd-tmpfiles --create /" LG_TMPFILES, NULL };

		text = vw_xasprintf("# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.\n"
				    "f /dev/shm/looking-glass 0660 %s kvm -\n", user);
		s.data = text;
		s.len = strlen(text);
		s.post = post;
		r = vw_plan_add(p, ctx->sr, &s, err);
		free(text);
		if (r < 0)
			return r;
		vw_vm_info_note(info, _("Looking Glass: %ld MiB of shared memory for %ldx%ld (the <shmem> device). In the guest, install the IVSHMEM driver (virtio-win) and the Looking Glass host application; on the host run: looking-glass-client -f /dev/shm/looking-glass"),
				mib, c->vm.lg_width, c->vm.lg_height);
		return 0;
	}
	text = vw_xasprintf("# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.\n"
			    "# Looking Glass: /dev/kvmfr0, sized for %ldx%ld.\n"
			    "options kvmfr static_size_mb=%ld\n", c->vm.lg_width, c->vm.lg_height, mib);
	r = vw_plan_add_file(p, ctx->sr, KVMFR_MODPROBE, text, strlen(text), 0644,
			     N_("Looking Glass: the kvmfr module's buffer, sized for the guest's resolution"), err);
	free(text);
	if (r < 0)
		return r;
	text = vw_xasprintf("# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.\nkvmfr\n");
	r = vw_plan_add_file(p, ctx->sr, KVMFR_LOAD, text, strlen(text), 0644,
			     N_("Looking Glass: load the kvmfr module at boot"), err);
	free(text);
	if (r < 0)
		return r;
	text = vw_xasprintf("# Written by vfiowiz (GPU passthrough); 'vfiowiz undo' takes it back.\n"
			    "SUBSYSTEM==\"kvmfr\", OWNER=\"%s\", GROUP=\"kvm\", MODE=\"0660\"\n", user);
	r = vw_plan_add_file(p, ctx->sr, KVMFR_UDEV, text, strlen(text), 0644,
			     N_("Looking Glass: /dev/kvmfr0 readable by the client's user and QEMU (kvm group)"), err);
	free(text);
	if (r < 0)
		return r;
	vw_vm_info_note(info, _("Looking Glass through kvmfr: %ld MiB for %ldx%ld. The kvmfr module comes with Looking Glass (build it with DKMS: looking-glass-module-dkms, or the source's module/ directory). Add \"/dev/kvmfr0\" to cgroup_device_acl in /etc/libvirt/qemu.conf (and to the AppArmor profile where it is used). In the guest, install the IVSHMEM driver and the Looking Glass host application; on the host run: looking-glass-client -f /dev/kvmfr0"),
			mib, c->vm.lg_width, c->vm.lg_height);
	return 0;
}

/* ---- output ------------------------------------------------------------------ */

static bool has_password(xmlNode *n)
{
	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE) {
			if (xmlHasProp(n, XC("passwd")) || xmlHasProp(n, XC("password")))
				return true;
			if (has_password(n->children))
				return true;
		}
	}
	return false;
}

static char *serialize(xmlDoc *doc, size_t *len)
{
	xmlBuffer *xb = xmlBufferCreate();
	xmlSaveCtxt *save;
	xmlNode *c = xmlNewDocComment(doc, XC(header));
	struct vw_buf b = VW_BUF_INIT;

	xmlAddPrevSibling(xmlDocGetRootElement(doc), c);
	save = xmlSaveToBuffer(xb, "UTF-8", XML_SAVE_FORMAT | XML_SAVE_NO_DECL);
	xmlSaveDoc(save, doc);
	xmlSaveClose(save);
	vw_buf_add(&b, xmlBufferContent(xb), (size_t)xmlBufferLength(xb));
	/* Wipe libxml2's copy: it may hold the VNC password. */
	memset((void *)xmlBufferContent(xb), 0, (size_t)xmlBufferLength(xb));
	xmlBufferFree(xb);
	*len = b.len;
	return vw_buf_steal(&b);
}

/* What we made must read back as XML (libvirt's parser is as strict): a
 * control character or bad UTF-8 that got this far stops the plan here, not
 * at virsh define after the host files are written. */
static int xml_check(const char *data, size_t len, const char *path, struct vw_err *err)
{
	xmlDoc *d = xmlReadMemory(data, (int)len, NULL, "UTF-8",
				  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	const xmlError *e;
	char msg[256];

	if (d) {
		xmlFreeDoc(d);
		return 0;
	}
	e = xmlGetLastError();
	snprintf(msg, sizeof(msg), "%s", e && e->message ? e->message : "?");
	/* TRANSLATORS: a file name, then libxml2's message (English). */
	return vw_err_set(err, -EINVAL, _("/%s: the domain XML made from the answers is not valid XML (%s): nothing is written"),
			  path, vw_strtrim(msg));
}

/* ---- the back end ------------------------------------------------------------ */

static bool libvirt_detect(const struct vw_sysroot *sr, const struct vw_facts *f)
{
	static const char *const marks[] = { "usr/sbin/libvirtd", "usr/sbin/virtqemud",
					     "etc/libvirt/qemu", "usr/bin/virsh" };

	(void)f;
	for (size_t i = 0; i < VW_ARRAY_SIZE(marks); i++)
		if (vw_sysroot_exists(sr, marks[i]))
			return true;
	return false;
}

/* install: keep a VNC display on 127.0.0.1 for the OS installation
 * although VNC was not chosen (Windows Setup, or an installer ISO). */
static int build_new(xmlDoc **docp, const struct vw_vm_ctx *ctx, const char *ours,
		     struct disk_plan *dp, bool code43, bool install, struct vw_err *err)
{
	const struct vw_choices *c = ctx->choices;
	const char *tname = c->vm.guest_os == VW_GUEST_WINDOWS ? "libvirt-windows.xml" : "libvirt-linux.xml";
	xmlNode *root, *devices, *video;
	int rc = load_template(docp, tname, err);

	if (rc < 0)
		return rc;
	root = xmlDocGetRootElement(*docp);
	devices = child(root, "devices");
	if (!child(root, "name") || !devices)
		return vw_err_set(err, -EINVAL, _("the template %s has no name or devices"), tname);
	set_text(child(root, "name"), c->vm.name);
	set_sizes(root, &c->vm);
	rc = plan_disk(devices, ctx, ours, dp, err);
	if (rc < 0 || (rc = plan_cdroms(root, ctx, err)) < 0)
		return rc;
	if (code43) {
		if (!code43_done(root) && (rc = add_code43(root, err)) < 0)
			return rc;
	} else {
		remove_code43(root);
	}
	if (c->access.vnc || install) {
		xmlNode *g = child_with(devices, "graphics", "type", "vnc");

		if (!g)
			return vw_err_set(err, -EINVAL, _("the template %s has no VNC display"), tname);
		vnc_set(g, c->access.vnc ? c->access.vnc_password : NULL);
	} else {
		drop(child_with(devices, "graphics", "type", "vnc"));
		drop(child_with(devices, "input", "type", "tablet"));
		if ((video = child(child(devices, "video"), "model"))) {
			xmlAttr *a;

			while ((a = video->properties))
				xmlRemoveProp(a);
			xmlSetProp(video, XC("type"), XC("none"));
		}
	}
	return 0;
}

static int libvirt_plan(struct vw_plan *p, const struct vw_vm_ctx *ctx, struct vw_vm_info *info,
			struct vw_err *err)
{
	const struct vw_choices *c = ctx->choices;
	const char *name = c->vm.name;
	bool code43 = vw_vm_code43(c, ctx->facts, ctx->unit);
	char *ours = NULL, *theirs = NULL, *data = NULL, *abs = NULL, *cmd;
	struct disk_plan dp = { 0 };
	struct vw_vm_slot *slots = NULL;
	size_t nslots = 0, len = 0;
	xmlDoc *doc = NULL;
	xmlNode *root;
	bool changed = true;
	int rc;

	if (!vw_vm_name_ok(name))
		return vw_err_set(err, -EINVAL,
				  _("'%s' cannot be a domain name here: use letters, digits, '.', '_', '+' and '-' (at most 64)"),
				  name);
	if (c->access.vnc && (rc = vw_vm_vnc_password_check(c->access.vnc_password, err)) < 0)
		return rc;
	LIBXML_TEST_VERSION;
	ours = vw_xasprintf("%s/%s.xml", VW_LIBVIRT_DIR, name);
	theirs = vw_xasprintf("etc/libvirt/qemu/%s.xml", name);
	free(info->name);
	info->name = vw_xstrdup(name);
	free(info->config_path);
	info->config_path = vw_xstrdup(ours);
	info->created = !c->vm.existing;
	info->vnc = c->access.vnc;
	nslots = vw_vm_slots(ctx->facts, ctx->unit, &slots);

	if (!c->vm.existing) {
		if (vw_sysroot_exists(ctx->sr, theirs) && !vw_sysroot_exists(ctx->sr, ours)) {
			rc = vw_err_set(err, -EEXIST,
					_("libvirt has a domain named %s already: choose it as an existing VM, or another name"),
					name);
			goto out;
		}
		info->install_display = !c->access.vnc &&
					(c->vm.guest_os == VW_GUEST_WINDOWS || c->vm.install_iso[0]);
		rc = build_new(&doc, ctx, ours, &dp, code43, info->install_display, err);
		if (rc < 0)
			goto out;
		root = xmlDocGetRootElement(doc);
		rc = plan_hostdevs(root, ctx, slots, nslots, err);
		if (rc < 0 || (rc = plan_bars(root, ctx, info, err)) < 0)
			goto out;
		plan_mdevs(root, ctx);
		plan_vgpus(root, ctx);
		if (c->vm.looking_glass != VW_LG_NONE)
			plan_lg_domain(root, &c->vm);
	} else {
		xmlNode *nm;
		xmlChar *have;
		int r;

		rc = load_existing(&doc, ctx->sr, name, err);
		if (rc < 0)
			goto out;
		root = xmlDocGetRootElement(doc);
		nm = child(root, "name");
		have = nm ? xmlNodeGetContent(nm) : NULL;
		if (!have || xmlStrcmp(have, XC(name)) != 0) {
			xmlFree(have);
			rc = vw_err_set(err, -EINVAL, _("the domain read for %s names another domain"), name);
			goto out;
		}
		xmlFree(have);
		if (!child(root, "devices")) {
			rc = vw_err_set(err, -EINVAL, _("the domain %s has no devices element"), name);
			goto out;
		}
		changed = false;
		rc = plan_hostdevs(root, ctx, slots, nslots, err);
		if (rc < 0)
			goto out;
		changed |= rc > 0;
		changed |= plan_mdevs(root, ctx) > 0;
		changed |= plan_vgpus(root, ctx) > 0;
		if ((rc = plan_bars(root, ctx, info, err)) < 0)
			goto out;
		changed |= rc > 0;
		if (c->vm.looking_glass != VW_LG_NONE)
			changed |= plan_lg_domain(root, &c->vm) > 0;
		if (code43 && !code43_done(root)) {
			if ((rc = add_code43(root, err)) < 0)
				goto out;
			changed = true;
		}
		if (c->access.vnc) {
			r = plan_vnc_existing(child(root, "devices"), c->access.vnc_password, err);
			if ((rc = r) < 0)
				goto out;
			changed |= r > 0;
		}
		rc = 0;
		if (!changed) {
			vw_vm_info_note(info, _("The domain %s already has every device of the unit: nothing to change."),
					name);
			goto lg;
		}
	}

	data = serialize(doc, &len);
	if ((rc = xml_check(data, len, ours, err)) < 0)
		goto out;
	{
		struct vw_file_spec spec = {
			.path = ours,
			.data = data,
			.len = len,
			.mode = 0600,
			.why = N_("libvirt domain with the GPU's functions, defined with virsh define"),
			.flags = has_password(root) ? VW_CHANGE_SECRET : 0,
		};

		rc = vw_plan_add(p, ctx->sr, &spec, err);
	}
	if (rc < 0)
		goto out;
	abs = vw_xasprintf("/%s", ours);
	if (dp.create) {
		cmd = vw_storage_qcow2_cmd(dp.path, (uint64_t)dp.size_gib << 30);
		vw_plan_add_post(p, cmd);
		free(cmd);
	}
	{
		const char *argv[] = { "virsh", "define", abs, NULL };

		cmd = vw_exec_join(argv);
		vw_plan_add_post(p, cmd);
		free(cmd);
	}
	if (!c->vm.existing && c->vm.guest_os == VW_GUEST_WINDOWS && !c->vm.virtio_iso[0])
		vw_vm_info_note(info, _("Windows Setup needs the virtio-win drivers to see the virtio disk: attach the Windows installer and the virtio-win ISO as CD-ROMs before the first start (virt-manager, or virt-xml %s --add-device --disk PATH,device=cdrom)."),
				name);
	/* The Windows template's TPM 2.0 is emulated by swtpm: without it the
	 * domain is defined but does not start (found by tests/e2e). */
	if (!c->vm.existing && c->vm.guest_os == VW_GUEST_WINDOWS && !vw_sysroot_exists(ctx->sr, "usr/bin/swtpm"))
		vw_vm_info_note(info, _("The VM has a TPM 2.0, which Windows 11 needs; libvirt emulates it with swtpm, which this host does not have: install it (Debian, Ubuntu: apt install swtpm swtpm-tools; Fedora: dnf install swtpm swtpm-tools), or the VM will not start (\"TPM version '2.0' is not supported\")."));
	if (!c->vm.existing && c->vm.install_iso[0])
		vw_vm_info_note(info, _("The installer ISO boots first, then the disk: once the OS is installed, eject it with virsh change-media %s sda --eject --config."),
				name);
	if (c->vm.existing && (c->vm.install_iso[0] || c->vm.virtio_iso[0]))
		vw_vm_info_note(info, _("The ISOs are attached to new VMs only: add them to %s with virt-xml %s --add-device --disk PATH,device=cdrom."),
				name, name);
	if (info->install_display)
		vw_vm_info_note(info, _("For the installation the VM keeps a VNC display on the host's 127.0.0.1 only, without a password: open it from your machine with virt-viewer -c qemu+ssh://USER@HOST/system %s (or ssh -L 5900:127.0.0.1:5900 USER@HOST and a VNC viewer on localhost:5900). Once Remote Desktop works, remove it: virsh edit %s, delete the <graphics type='vnc'> element and set <model type='none'/> in <video>."),
				name, name);
	if (dp.create)
		vw_vm_info_note(info, _("A new %ld GiB disk image %s is created by qemu-img after the domain file is written."),
				dp.size_gib, dp.path);
	vw_vm_info_note(info, _("Start the VM with: virsh start %s"), name);
lg:
	rc = c->vm.looking_glass != VW_LG_NONE ? plan_lg_host(p, ctx, info, err) : 0;
out:
	if (data) {
		memset(data, 0, len);
		free(data);
	}
	if (doc)
		xmlFreeDoc(doc);
	vw_vm_slots_free(slots, nslots);
	free(dp.path);
	free(ours);
	free(theirs);
	free(abs);
	return rc;
}

const struct vw_vm_ops vw_vm_libvirt_ops = {
	.name = "libvirt",
	.label = N_("libvirt (virt-manager, virsh)"),
	.product = "libvirt",
	.target = VW_VM_LIBVIRT,
	.host_vnc = true,
	.nat_guest_net = true,
	.uses_vmid = false,
	.creates_mdevs = false,
	.looking_glass = true,
	.qemu_hooks = true,
	.pci_mapping = false,
	.vendor_vgpu = true,
	.iso_volumes = false,
	.about = N_("A libvirt domain (q35, OVMF/UEFI) with every function of the card as a hostdev. The "
		    "wizard writes the domain document to /etc/vfiowiz/libvirt/ and defines it with "
		    "virsh define: libvirt's own files are never edited."),
	.absent = N_("libvirt is not installed on this host. Install it first (Debian, Ubuntu: apt install "
		     "libvirt-daemon-system qemu-system-x86 ovmf; Fedora: dnf install @virtualization; Arch: "
		     "pacman -S libvirt qemu-desktop edk2-ovmf), or leave the name empty to prepare only the "
		     "host."),
	.detect = libvirt_detect,
	.plan = libvirt_plan,
};
