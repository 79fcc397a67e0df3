/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_guest.c - `vfiowiz guest-check [--json]`, run inside the VM.
 *
 * Exit status (docs/guest-check.md): 0 all good, 1 degraded (NVLink down,
 * P2P not OK, nvidia-smi failing), 2 no passed-through GPU or one without a
 * usable driver, 3 error. */
#include "cli.h"
#include "guest.h"

#include <stdio.h>

int vw_cmd_guest_check(const struct vw_cli *cli)
{
	struct vw_sysroot *sr = NULL;
	struct vw_facts f;
	struct vw_guest g;
	struct vw_buf out = VW_BUF_INIT;
	struct vw_err err = { 0 };
	int rc;

	rc = vw_cli_probe(cli, &sr, &f);
	if (rc)
		return rc;
	if (vw_guest_check(&g, sr, &f, &err) < 0) {
		fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
		rc = VW_EXIT_ERROR;
	} else {
		if (cli->json)
			vw_guest_report_json(&out, &g, &f);
		else
			vw_guest_report_text(&out, &g, &f);
		rc = vw_cli_write(&out);
		if (!rc)
			rc = g.exit_code;
	}
	vw_buf_done(&out);
	vw_guest_done(&g);
	vw_facts_done(&f);
	vw_sysroot_free(sr);
	return rc;
}
