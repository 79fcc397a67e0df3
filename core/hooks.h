/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hooks.h - gpu_mode = dynamic: single-GPU passthrough through libvirt hooks.
 *
 * vfio-pci gets the assignment unit only while the VM runs.  Nothing binds
 * the GPU at boot (no ids, no driver_override, no early loading); instead:
 *  - VW_HOOK_QEMU, libvirt's QEMU hook (templates/libvirt-hook-qemu): a
 *    dispatcher that runs VW_HOOKS_DIR/NAME for domain NAME.  When the host
 *    already has a hook of its own there, ours goes to VW_HOOK_QEMU_D
 *    instead (libvirt >= 6.5 runs every script of qemu.d after the hook);
 *  - VW_HOOKS_DIR/NAME (templates/gpu-handover.sh): on prepare/begin it
 *    stops the display manager and graphical sessions, unbinds the
 *    framebuffer consoles, the firmware framebuffer and the unit's drivers
 *    (unloading NVIDIA's modules when they drive nothing else), and binds
 *    vfio-pci; on release/end the reverse, in reverse order; a timer
 *    restores the host when the VM has not started VW_HOOK_TIMEOUT seconds
 *    after prepare.  It logs to var/log/vfiowiz/NAME.log.
 * The domain's hostdevs are managed (vm_libvirt.c), so libvirt also detaches
 * and reattaches the functions itself.
 */
#ifndef VW_HOOKS_H
#define VW_HOOKS_H

#include "hostplan.h"
#include "vw.h"

#define VW_HOOK_QEMU "etc/libvirt/hooks/qemu"
#define VW_HOOK_QEMU_D "etc/libvirt/hooks/qemu.d/vfiowiz"
#define VW_HOOKS_DIR "etc/vfiowiz/hooks"
#define VW_HOOK_TIMEOUT 120

/* Plan the hooks for the VM of h->c (vm.target libvirt, vm.name set) and
 * the unit h->hp->devs, and remove the boot-time binding files of ours a
 * static plan left (modprobe.d, the bind script).  Returns 0, or a negative
 * code with err set (no libvirt VM named, a template error). */
int vw_hooks_plan(struct vw_host *h, struct vw_err *err);

/* The handover script for domain name and the functions devs (facts
 * indexes, n of them) into *out (caller frees).  Returns 0 or a negative
 * code with err set. */
int vw_hooks_script(const struct vw_facts *f, const char *name, const int *devs, size_t n,
		    char **out, struct vw_err *err);

#endif
