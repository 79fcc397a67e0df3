/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_snapshot.c - `vfiowiz snapshot` and `--sysroot FILE.tar.gz`.
 *
 * snapshot collects (core/snapshot.h), shows what it collected, asks, and
 * writes a 0600 archive.  An archive given as --sysroot is imported into a
 * private temporary folder, which every command then uses as its root and
 * which is removed when the program exits. */
#define _GNU_SOURCE
#include "cli.h"
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char *imported_dir;

static void remove_imported(void)
{
	if (imported_dir) {
		vw_snapshot_remove(imported_dir);
		free(imported_dir);
		imported_dir = NULL;
	}
}

/* The copy must go however the program ends: exit runs remove_imported(),
 * and a small child removes it too once our end of a pipe closes, which
 * also happens when we are killed (SIGPIPE under `| head`, Ctrl-C,
 * SIGKILL), where no handler of ours could run safely. */
static void start_reaper(const char *dir)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		char c;

		setsid();	/* out of the terminal's signals */
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		vw_snapshot_remove(dir);
		_exit(0);
	}
	close(p[0]);	/* p[1] stays open (close-on-exec) until we end */
}

int vw_cli_open_archive(struct vw_cli *cli)
{
	struct vw_tar_stats st;
	struct vw_err err = { 0 };
	char *dir;

	if (!cli->sysroot || !vw_snapshot_is_archive(cli->sysroot))
		return 0;
	if (imported_dir) {
		fprintf(stderr, _("%s: only one snapshot can be replayed at a time\n"), PACKAGE);
		return VW_EXIT_ERROR;
	}
	if (vw_snapshot_import(cli->sysroot, NULL, &dir, &st, &err) < 0) {
		fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
		return VW_EXIT_ERROR;
	}
	imported_dir = dir;
	atexit(remove_imported);
	start_reaper(imported_dir);
	cli->snapshot = cli->sysroot;
	cli->sysroot = imported_dir;
	return 0;
}

static char *default_name(time_t now)
{
	char stamp[32];
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	return vw_xasprintf("vfiowiz-snapshot-%s.tar.gz", stamp);
}

/* Ask on the terminal; false unless the answer is yes in the user's
 * locale (rpmatch), or the "y" of the prompt's language (the catalog can
 * be French while the locale is C.UTF-8, as with LANGUAGE=fr). */
static bool confirm(const char *path)
{
	char line[128];

	fprintf(stdout, _("Write this snapshot to %s? [y/N] "), path);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return rpmatch(line) == 1 || !strcmp(vw_strtrim(line), _("y"));
}

int vw_cmd_snapshot(const struct vw_cli *cli)
{
	struct vw_snapshot_opts opts = { 0 };
	struct vw_sysroot *sr = NULL;
	struct vw_snapshot snap;
	struct vw_buf out = VW_BUF_INIT;
	struct vw_err err = { 0 };
	char *demo = NULL, *path;
	const char *root = cli->sysroot;
	int rc = 0;

	if (cli->demo) {
		demo = vw_cli_demo_dir();
		if (!demo) {
			fprintf(stderr, _("%s: the demo host is not installed (set VFIOWIZ_DEMO)\n"), PACKAGE);
			return VW_EXIT_ERROR;
		}
		root = demo;
	}
	if (vw_sysroot_open(&sr, root, &err) < 0) {
		fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
		free(demo);
		return VW_EXIT_ERROR;
	}
	if (vw_sysroot_is_host(sr) && geteuid() != 0)
		fprintf(stderr, _("%s: not running as root: PCI config space, ACPI tables and kernel "
				  "messages may be incomplete in the snapshot\n"), PACKAGE);
	if (vw_sysroot_is_host(sr) && !cli->list)
		fprintf(stderr, _("%s: collecting (this runs nvidia-smi, dmesg and the boot tools)...\n"),
			PACKAGE);
	opts.now = time(NULL);
	if (vw_snapshot_collect(sr, &opts, &snap, &err) < 0) {
		fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
		vw_sysroot_free(sr);
		free(demo);
		return VW_EXIT_ERROR;
	}
	path = cli->output ? vw_xstrdup(cli->output) : default_name(snap.created);

	vw_buf_printf(&out, _("The snapshot of %s holds:\n"),
		      vw_sysroot_is_host(sr) ? _("this host") :
		      cli->snapshot && !cli->demo ? cli->snapshot : vw_sysroot_root(sr));
	vw_snapshot_listing(&snap, cli->list, &out);
	if (!cli->list)
		vw_buf_adds(&out, _("(--list shows every file; nothing is sent anywhere: you decide "
				    "where the file goes)\n"));
	rc = vw_cli_write(&out);
	vw_buf_done(&out);

	if (rc == 0 && !cli->list) {
		if (!cli->yes && !isatty(STDIN_FILENO)) {
			fprintf(stderr, _("%s: not writing without confirmation: run it on a terminal "
					  "or add --yes\n"), PACKAGE);
			rc = VW_EXIT_ERROR;
		} else if (!cli->yes && !confirm(path)) {
			fprintf(stderr, _("%s: nothing written\n"), PACKAGE);
			rc = 1;
		} else if (vw_snapshot_write(&snap, path, &err) < 0) {
			fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
			rc = VW_EXIT_ERROR;
		} else {
			printf(_("Snapshot written to %s (readable by you only).\n"
				 "Replay it with: %s --sysroot %s check\n"), path, PACKAGE, path);
		}
	}
	free(path);
	vw_snapshot_done(&snap);
	vw_sysroot_free(sr);
	free(demo);
	return rc;
}
