/* SPDX-License-Identifier: GPL-2.0-or-later */
/* findings.h - pure rules: facts in, findings out (docs/formats.md section 1).
 *
 * A finding has a stable code (for tests, JSON and support), a severity, a
 * message saying what it means and a remedy saying what to do, both
 * translated when the findings are evaluated. */
#ifndef VW_FINDINGS_H
#define VW_FINDINGS_H

#include "facts.h"

enum vw_severity {
	VW_SEV_OK,		/* a check that passed */
	VW_SEV_INFO,		/* worth knowing, changes nothing */
	VW_SEV_WARN,		/* works, but mind this */
	VW_SEV_FIXABLE,		/* needs a change the wizard can make */
	VW_SEV_BLOCKER,		/* passthrough cannot be set up from here */
};

struct vw_finding {
	const char *code;	/* stable, e.g. "iommu-firmware-off" */
	enum vw_severity sev;
	char *msg;
	char *remedy;		/* "" when there is nothing to do */
};

struct vw_findings {
	struct vw_finding *v;
	size_t n;
};

/* Evaluate every rule; fills *out (caller frees with vw_findings_done). */
void vw_findings_eval(const struct vw_facts *f, struct vw_findings *out);
void vw_findings_done(struct vw_findings *fs);
/* Append a finding: code is a static string; msg and remedy (NULL: "") are
 * taken over (translated, vw_x*() allocated).  Every list of findings
 * (check, the unit's issues, guest-check) grows through it. */
void vw_findings_add(struct vw_findings *fs, const char *code, enum vw_severity sev, char *msg,
		     char *remedy);
const struct vw_finding *vw_findings_get(const struct vw_findings *fs, const char *code);

/* `vfiowiz check` exit status: 0 ready, 1 ready after changes the wizard
 * can make, 2 not possible here. */
int vw_findings_exit_code(const struct vw_findings *fs);

const char *vw_severity_name(enum vw_severity s);	/* stable: "ok", "info", ... */

/* Whether the kernel needs intel_iommu=on to turn the IOMMU on for a target
 * (docs/formats.md section 1, rule 3): never on AMD, not when the kernel default
 * is on, not with Debian's INTGPU_OFF default unless the target is an
 * integrated GPU.  Unknown config on Intel counts as "needed". */
bool vw_needs_intel_iommu_on(const struct vw_facts *f, bool target_is_igpu);

/* An Intel integrated GPU: vendor 8086, display class, on bus 0. */
bool vw_dev_is_igpu(const struct vw_pci_dev *d);

#endif
