/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.c - what the commands share (probe the root, write the output) and
 * the two commands that only report: check and groups. */
#include "cli.h"
#include "datadir.h"
#include "findings.h"
#include "mig.h"
#include "report.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *vw_cli_demo_dir(void)
{
	return vw_datadir(VW_DATA_DEMO);
}

int vw_cli_probe(const struct vw_cli *cli, struct vw_sysroot **sr, struct vw_facts *f)
{
	struct vw_err err = { 0 };
	char *demo = NULL;
	const char *root = cli->sysroot;

	if (cli->demo) {
		demo = vw_cli_demo_dir();
		if (!demo) {
			fprintf(stderr, _("%s: the demo host is not installed (set VFIOWIZ_DEMO)\n"), PACKAGE);
			return VW_EXIT_ERROR;
		}
		root = demo;
	}
	if (vw_sysroot_open(sr, root, &err) < 0 || vw_facts_probe(f, *sr, &err) < 0) {
		fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
		free(demo);
		return VW_EXIT_ERROR;
	}
	free(demo);
	return 0;
}

int vw_cli_write(const struct vw_buf *b)
{
	/* Host strings may hold terminal escapes: made printable (JSON is
	 * escaped already and comes through unchanged). */
	char *p = vw_printable_n(b->data ? b->data : "", b->len, true);
	size_t n = strlen(p);
	int rc = n && fwrite(p, 1, n, stdout) != n ? VW_EXIT_ERROR : 0;

	free(p);
	if (fflush(stdout) != 0)
		rc = VW_EXIT_ERROR;
	return rc;
}

int vw_cmd_check(const struct vw_cli *cli)
{
	struct vw_sysroot *sr = NULL;
	struct vw_facts f;
	struct vw_findings fs;
	struct vw_buf out = VW_BUF_INIT;
	int rc;

	rc = vw_cli_probe(cli, &sr, &f);
	if (rc)
		return rc;
	vw_findings_eval(&f, &fs);
	{
		struct vw_mig mig;

		vw_mig_probe(&mig, sr, &f);
		vw_mig_findings(&mig, &f, &fs);
		vw_mig_done(&mig);
	}
	if (cli->json)
		vw_report_check_json(&out, &f, &fs);
	else
		vw_report_check_text(&out, &f, &fs);
	rc = vw_cli_write(&out);
	if (!rc)
		rc = vw_findings_exit_code(&fs);
	vw_buf_done(&out);
	vw_findings_done(&fs);
	vw_facts_done(&f);
	vw_sysroot_free(sr);
	return rc;
}

int vw_cmd_groups(const struct vw_cli *cli)
{
	struct vw_sysroot *sr = NULL;
	struct vw_facts f;
	struct vw_buf out = VW_BUF_INIT;
	int rc;

	rc = vw_cli_probe(cli, &sr, &f);
	if (rc)
		return rc;
	if (cli->json)
		vw_report_groups_json(&out, &f, cli->all);
	else
		vw_report_groups_text(&out, &f, cli->all);
	rc = vw_cli_write(&out);
	vw_buf_done(&out);
	vw_facts_done(&f);
	vw_sysroot_free(sr);
	return rc;
}
