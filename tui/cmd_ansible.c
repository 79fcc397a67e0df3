/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_ansible.c - `plan --format ansible`: the plan as an Ansible playbook
 * (core/ansible.h), on stdout or in -o FILE (with files/ next to it for
 * contents YAML cannot hold).  cmd_plan.c builds the plan and hands it
 * here when --format is given. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ansible.h"

int vw_cli_format_check(const struct vw_cli *cli)
{
	if (!cli->format)
		return 0;
	if (strcmp(cli->format, "text") && strcmp(cli->format, "ansible")) {
		fprintf(stderr, _("%s: unknown format '%s' (text, ansible)\n"), PACKAGE, cli->format);
		return VW_EXIT_ERROR;
	}
	if (!cli->argv || strcmp(cli->argv[0], "plan")) {
		fprintf(stderr, _("%s: --format goes with plan\n"), PACKAGE);
		return VW_EXIT_ERROR;
	}
	return 0;
}

static int write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	const char *p = data;

	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		p += w;
		len -= (size_t)w;
	}
	return close(fd) < 0 ? -errno : 0;
}

/* mkdir -p of the directories above path (not path itself). */
static int make_parents(char *path)
{
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			int e = errno;

			*s = '/';
			return -e;
		}
		*s = '/';
	}
	return 0;
}

int vw_cli_plan_export(const struct vw_cli *cli, const struct vw_plan *plan,
		       const struct vw_hostplan *hp, const char *secret)
{
	struct vw_ansible_opts o = {
		.secret = secret,
		.checks = hp ? hp->checks : NULL,
		.nchecks = hp ? hp->nchecks : 0,
		.allow_files = cli->output && strcmp(cli->output, "-"),
		.source = cli->answers,
	};
	struct vw_ansible_files files = { 0 };
	struct vw_buf out = VW_BUF_INIT;
	struct vw_err err = { 0 };
	char *dir = NULL;
	int rc = 0, r;

	if (vw_ansible_playbook(&out, plan, &o, &files, &err) < 0) {
		fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
		vw_buf_done(&out);
		return VW_EXIT_ERROR;
	}
	if (!plan->n)
		fprintf(stderr, _("%s: nothing to change on this host, so the playbook changes nothing: "
				  "make it on a host that does not hold the changes yet\n"), PACKAGE);
	if (!o.allow_files) {
		rc = vw_cli_write(&out);
		goto done;
	}
	r = write_file(cli->output, out.data, out.len, 0644);
	if (r < 0) {
		fprintf(stderr, _("%s: cannot write %s: %s\n"), PACKAGE, cli->output, strerror(-r));
		rc = VW_EXIT_ERROR;
		goto done;
	}
	{
		char *copy = vw_xstrdup(cli->output);

		dir = vw_xstrdup(dirname(copy));
		free(copy);
	}
	for (size_t i = 0; i < files.n; i++) {
		char *path = vw_xasprintf("%s/files/%s", dir, files.v[i].path);

		r = make_parents(path);
		if (r == 0)
			r = write_file(path, files.v[i].data, files.v[i].len, 0644);
		if (r < 0) {
			fprintf(stderr, _("%s: cannot write %s: %s\n"), PACKAGE, path, strerror(-r));
			rc = VW_EXIT_ERROR;
		} else {
			fprintf(stderr, _("%s: /%s holds bytes YAML cannot: written to %s\n"), PACKAGE,
				files.v[i].path, path);
		}
		free(path);
	}
done:
	vw_ansible_files_done(&files);
	vw_buf_done(&out);
	free(dir);
	return rc;
}
