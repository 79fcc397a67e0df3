/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h - the outputs of `check` and `groups`, as text or JSON, into a
 * buffer (the core formats, the front end prints).  The JSON schemas are in
 * docs/json-schema.md; human text is translated, JSON keys and codes never. */
#ifndef VW_REPORT_H
#define VW_REPORT_H

#include "facts.h"
#include "findings.h"

void vw_report_check_text(struct vw_buf *out, const struct vw_facts *f, const struct vw_findings *fs);
void vw_report_check_json(struct vw_buf *out, const struct vw_facts *f, const struct vw_findings *fs);

/* all: also list the devices that belong to no IOMMU group. */
void vw_report_groups_text(struct vw_buf *out, const struct vw_facts *f, bool all);
void vw_report_groups_json(struct vw_buf *out, const struct vw_facts *f, bool all);

/* Translated severity tag of a finding, 4 columns: " OK ", "INFO", "WARN",
 * "FIX ", "STOP" (`check`, and guest-check's report). */
const char *vw_severity_tag(enum vw_severity s);

/* Translated one-line verdict of a group ("shares only with bridges: fine"). */
const char *vw_verdict_text(enum vw_group_verdict v);
/* Translated role label for a device line ("GPU", "companion of 0000:01:00.0"). */
void vw_role_text(struct vw_buf *out, const struct vw_facts *f, const struct vw_pci_dev *d);
/* What lets the function be shared (SR-IOV PF or VF, mdev types, NVIDIA
 * vGPU types), appended after ", " (or alone for a function with no role);
 * nothing when it has none.  vw_role_text() ends with it. */
void vw_sharing_text(struct vw_buf *out, const struct vw_facts *f, const struct vw_pci_dev *d);

/* Translated host role of a device ("host storage: /, /boot/efi (nvme0n1)";
 * roles joined by "; "), nothing when the host does not need it. */
void vw_host_role_text(struct vw_buf *out, const struct vw_pci_dev *d);

/* The verdict of `check` (translated, one sentence) and its next step (the
 * command to run, translated): ready, possible only with limits (no GPU can
 * go alone: finding gpu-limits), ready after changes, not possible. */
const char *vw_report_verdict(const struct vw_findings *fs);
const char *vw_report_next_step(const struct vw_findings *fs);

#endif
