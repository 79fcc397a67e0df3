/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify.h - after the reboot: did it work?  And when it did not, what is
 * wrong and how to fix it (the troubleshooting catalogue).
 *
 * The checks read fresh facts of the host (probe again after the reboot):
 * vfio-pci owns every device of the unit, every IOMMU group of the unit is
 * viable (no member left with a host driver), the host kept a display (or
 * was allowed not to), the IOMMU is on, and the initramfs holds vfio.  A
 * failed check names its diagnosis, an entry of the catalogue.
 *
 * Catalogue strings are untranslated msgids (N_()): show them with _(). */
#ifndef VW_VERIFY_H
#define VW_VERIFY_H

#include "answers.h"
#include "facts.h"
#include "sysroot.h"

enum vw_verify_state { VW_CHECK_OK, VW_CHECK_FAIL, VW_CHECK_UNKNOWN };

struct vw_verify_check {
	const char *code;	/* stable: "iommu", "vfio-bound", "group-viable",
				   "host-display", "initramfs-vfio" */
	enum vw_verify_state state;
	char *msg;		/* translated, about this host */
	char *detail;		/* translated specifics (devices, the command to
				   run), "" when none */
	const char *diag;	/* catalogue code when FAIL, else NULL */
};

struct vw_verify {
	struct vw_verify_check *v;
	size_t n;
};

/* Run every check of the choices' devices on f (probed from sr after the
 * reboot).  Never fails: what cannot be known is VW_CHECK_UNKNOWN.  Free
 * with vw_verify_done(). */
void vw_verify_run(struct vw_verify *out, const struct vw_sysroot *sr, const struct vw_facts *f,
		   const struct vw_choices *c);
void vw_verify_done(struct vw_verify *v);
/* No check failed. */
bool vw_verify_ok(const struct vw_verify *v);

struct vw_trouble {
	const char *code;	/* stable: "host-driver-bound", ... */
	const char *title;	/* N_(): "The host driver still owns the GPU" */
	const char *symptom;	/* N_(): what the user sees */
	const char *cause;	/* N_(): why it happens */
	const char *fix;	/* N_(): what to do */
	bool guest;		/* seen in the guest: the host checks cannot detect it */
};

/* The whole catalogue, in the order to show it. */
const struct vw_trouble *vw_trouble_list(size_t *n);
/* The entry of code, or NULL. */
const struct vw_trouble *vw_trouble_get(const char *code);

/* The command that lists the initramfs of the running kernel for the
 * detected tool ("lsinitramfs /boot/initrd.img-6.1.0-18-amd64"), or NULL
 * when the tool is unknown.  Caller frees. */
char *vw_verify_initramfs_cmd(const struct vw_facts *f);
/* The command that rebuilds it ("update-initramfs -u -k all"), or NULL. */
const char *vw_verify_rebuild_cmd(const struct vw_facts *f);

#endif
