/* SPDX-License-Identifier: GPL-2.0-or-later */
/* access.h - the guest-access step (docs/formats.md section 8): how a user over SSH
 * sees the desktop of a guest whose display is a passed-through GPU.
 *
 *  - VNC on the host (libvirt): <graphics type='vnc'> on 127.0.0.1 with
 *    autoport and a password, written by the libvirt back end into the
 *    domain document (a change flagged VW_CHANGE_SECRET, mode 0600: the
 *    password goes nowhere else).  Optionally our own nftables table that
 *    lets only the allow-list reach the VNC ports (VW_NFT_FILE, loaded by
 *    our unit VW_NFT_UNIT).  Proxmox: noVNC shows only the emulated
 *    display; a note steers to in-guest access.
 *  - RDP for Windows guests: a PowerShell script (templates/guest-rdp.ps1)
 *    written under VW_GUEST_DIR for the user to copy into the guest.
 *  - xrdp for Linux guests: a POSIX shell script (templates/guest-xrdp.sh)
 *    for Debian/Ubuntu and Fedora guests, written there too.
 *  - The exact commands to connect from the user's own computer.
 *
 * Allow-list entries are checked here as IPv4/IPv6 addresses or CIDRs
 * before they reach any script or rule set, so templates may insert them
 * quoted without further escaping.
 */
#ifndef VW_ACCESS_H
#define VW_ACCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "answers.h"
#include "plan.h"
#include "facts.h"
#include "sysroot.h"
#include "vmplan.h"
#include "vw.h"

/* Scripts for the guest (root-relative). */
/* Not under var/lib/vfiowiz: that is the journal's, which apply keeps to itself. */
#define VW_GUEST_DIR "var/lib/vfiowiz-guest"
#define VW_GUEST_RDP VW_GUEST_DIR "/enable-rdp.ps1"
#define VW_GUEST_XRDP VW_GUEST_DIR "/enable-xrdp.sh"
/* The host's VNC allow-list. */
#define VW_NFT_FILE "etc/vfiowiz/nftables/vnc-allow.nft"
#define VW_NFT_UNIT "etc/systemd/system/vfiowiz-vnc-allow.service"

/* The local port the tunnel commands use for RDP (3389 may be taken by the
 * user's own Windows). */
#define VW_RDP_TUNNEL_PORT 13389

/* Check the VNC choice: its password (vw_vm_vnc_password_check()).
 * Returns 0 or -EINVAL. */
int vw_access_vnc_check(const struct vw_access_choices *a, struct vw_err *err);

/* Check one allow-list entry: an IPv4 or IPv6 address, optionally with a
 * prefix length (/0-32, /0-128).  *v6 (may be NULL) tells the family. */
bool vw_access_addr_ok(const char *s, bool *v6);

/* The documents, expanded from their templates (tests use these).
 * Each appends to out and returns 0 or a negative code with err set. */
int vw_access_nft_ruleset(struct vw_buf *out, const struct vw_access_choices *a, struct vw_err *err);
/* local_subnet: the guest also accepts its own subnet, for a guest behind
 * the host's NAT network (libvirt's default), where the SSH tunnel through
 * the host arrives from. */
int vw_access_rdp_script(struct vw_buf *out, const struct vw_access_choices *a, bool local_subnet,
			 struct vw_err *err);
/* loopback: xrdp listens on 127.0.0.1 only (reached through an SSH tunnel
 * into the guest), chosen when the allow-list is empty. */
int vw_access_xrdp_script(struct vw_buf *out, const struct vw_access_choices *a, bool loopback,
			  bool local_subnet, struct vw_err *err);

/* What the access step planned, for people. */
struct vw_access_info {
	bool rdp_script;	/* VW_GUEST_RDP planned */
	bool xrdp_script;	/* VW_GUEST_XRDP planned */
	bool xrdp_loopback;
	bool nft;		/* the host allow-list planned */
	char **notes;		/* translated; NULL-terminated, never NULL */
	size_t nnotes;
};

void vw_access_info_init(struct vw_access_info *i);
void vw_access_info_done(struct vw_access_info *i);

/* The access step of the plan, after the VM step (vm says which VM and
 * target; vm->planned false: the scripts are still planned from the
 * answers' guest_os, the host VNC parts are not).  info is initialised here
 * (vw_access_info_done() in every case).  Returns 0 or a negative code with
 * err set. */
int vw_accessplan_build(struct vw_plan *p, const struct vw_sysroot *sr, const struct vw_facts *f,
			const struct vw_choices *c, const struct vw_vm_info *vm,
			struct vw_access_info *info, struct vw_err *err);

/* Append the exact commands to connect from the user's own computer
 * (translated text with the commands untranslated): the ssh -L tunnels,
 * vncviewer, mstsc, xfreerdp and Remmina lines, filled with the answers'
 * ssh_user and ssh_host (placeholders when unset) and the ports.  Used by
 * the `plan` command and the wizard's access step.  Appends nothing when
 * no access method is chosen. */
void vw_access_connect_text(struct vw_buf *out, const struct vw_choices *c,
			    const struct vw_vm_info *vm, const struct vw_access_info *info);

#endif
