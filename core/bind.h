/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bind.h - handing the chosen functions to vfio-pci (docs/formats.md section 4).
 *
 * By ids (options vfio-pci ids=, or vfio-pci.ids= on the kernel command
 * line) when no other function on the host has the same ids; by address
 * otherwise (identical GPUs): driverctl's override files where driverctl is
 * installed, else our own script that modprobe runs in place of loading
 * vfio-pci ("install vfio-pci ..."), which writes driver_override for the
 * listed addresses first.  softdeps make vfio-pci load before the host
 * driver of every chosen function, so both ways act before that driver can
 * take the device.
 *
 * Lockout protection: the boot display, or the last display the host would
 * keep, is refused unless allow_host_display or gpu_mode = dynamic (the
 * host gets it back when the VM stops); a blacklist that would also
 * stop the driver of a display the host keeps is refused outright.
 */
#ifndef VW_BIND_H
#define VW_BIND_H

#include <stdbool.h>
#include <stddef.h>

#include "answers.h"
#include "facts.h"
#include "hostplan.h"
#include "sysroot.h"
#include "vw.h"

/* Modules that may drive d: the module of its current driver (from
 * sys/bus/pci/drivers/NAME/module), then the usual ones for its vendor and
 * class (nvidia, nouveau, amdgpu, radeon, snd_hda_intel, xhci_pci,
 * i2c_nvidia_gpu, ucsi_ccg...).  Never vfio-pci, pci-stub or pcieport.
 * NULL-terminated, caller frees (vw_strv_free). */
char **vw_bind_host_modules(const struct vw_facts *f, const struct vw_sysroot *sr,
			    const struct vw_pci_dev *d);

/* Refuse what would lock the user out (see above).  devs: chosen function
 * indexes.  Returns 0, or -EPERM with a message saying what would happen. */
int vw_bind_check_lockout(const struct vw_facts *f, const struct vw_choices *c, const int *devs,
			  size_t n, struct vw_err *err);

/* The ids= list for devs ("10de:2204,10de:1aef"; the 4-part form with
 * subsystem ids when only those tell the devices apart), or NULL when some
 * other function on the host would match too; then *clash (caller frees)
 * says which ("0000:02:00.0 has the same ids 10de:2204 as 0000:01:00.0"). */
char *vw_bind_ids(const struct vw_facts *f, const int *devs, size_t n, char **clash);

/* Decide the binding and plan /etc/modprobe.d/vfiowiz.conf, the existing
 * vfio-pci options it merges into, driverctl files or the bind script, and
 * the kernel parameter when binding on the command line (h->kedits). */
int vw_bind_plan(struct vw_host *h, struct vw_err *err);

#endif
