/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_plan.c - `plan`, `apply` and `undo`: the answers file turned into a
 * plan (host, VM, guest access), shown as unified diffs, applied change by
 * change with a journal, and undone.
 *
 * Exit status: 0 when done (or when there is nothing to do), VW_EXIT_ERROR
 * (3) for anything else: bad usage, a bad answers file, a plan refused
 * (lockout protection...), a write, post-command or image check that failed.
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "access.h"
#include "answers.h"
#include "apply.h"
#include "diff.h"
#include "exec.h"
#include "pipeline.h"
#include "ui.h"

/* Everything a plan is built from, and the plan. */
struct planned {
	struct vw_sysroot *sr;
	struct vw_facts f;
	bool have_facts;
	struct vw_choices c;
	struct vw_plan plan;
	struct vw_plan_info info;	/* unit, host, VM, access (core/plan.h) */
};

static void planned_done(struct planned *p)
{
	vw_pipeline_info_done(&p->info);
	vw_plan_done(&p->plan);
	if (p->c.devices)
		vw_choices_done(&p->c);
	if (p->have_facts)
		vw_facts_done(&p->f);
	vw_sysroot_free(p->sr);
}

static int fail(const struct vw_err *err)
{
	fprintf(stderr, "%s: %s\n", PACKAGE, err->msg);
	return VW_EXIT_ERROR;
}

/* Load, probe and plan.  On failure prints why and returns VW_EXIT_ERROR. */
static int build(const struct vw_cli *cli, struct planned *p)
{
	struct vw_err err = { 0 };
	int rc;

	/* info stays zeroed until the plan fills it; vw_pipeline_info_done()
	 * takes a zeroed struct. */
	memset(p, 0, sizeof(*p));
	vw_plan_init(&p->plan);
	if (!cli->answers) {
		fprintf(stderr, _("%s: %s needs --answers FILE (see docs/answers.example.conf)\n"), PACKAGE,
			cli->argv[0]);
		return VW_EXIT_ERROR;
	}
	if (vw_answers_load(&p->c, cli->answers, &err) < 0)
		return fail(&err);
	rc = vw_cli_probe(cli, &p->sr, &p->f);
	if (rc)
		return rc;
	p->have_facts = true;
	if (vw_pipeline_build(&p->plan, p->sr, &p->f, &p->c, &p->info, &err) < 0)
		return fail(&err);
	return 0;
}

/* ---- showing a plan ------------------------------------------------------------ */

static void show_change(struct vw_buf *out, const struct vw_plan *plan, size_t i, const char *secret)
{
	const struct vw_change *c = &plan->v[i];
	char *la = vw_xasprintf("a/%s", c->path), *lb = vw_xasprintf("b/%s", c->path);
	const char *olda = c->old_data, *newb = c->new_data;
	size_t oldn = c->old_len, newn = c->new_len;
	char *m1 = NULL, *m2 = NULL;

	if (c->remove)
		vw_buf_printf(out, _("Change %zu of %zu: remove /%s\n"), i + 1, plan->n, c->path);
	else if (!c->old_exists)
		vw_buf_printf(out, _("Change %zu of %zu: new file /%s (mode %04o)\n"), i + 1, plan->n, c->path,
			      (unsigned)c->mode);
	else
		vw_buf_printf(out, _("Change %zu of %zu: /%s\n"), i + 1, plan->n, c->path);
	vw_buf_printf(out, _("Why: %s\n"), _(c->why));
	if (c->secret) {
		vw_buf_adds(out, _("(holds a secret: it is written mode 0600, and the password is masked below)\n"));
		olda = m1 = vw_change_mask(c->old_data, c->old_len, secret, &oldn);
		newb = m2 = vw_change_mask(c->new_data, c->new_len, secret, &newn);
	}
	vw_diff_unified(out, olda, oldn, newb, newn, c->old_exists ? la : NULL, c->remove ? NULL : lb,
			VW_DIFF_CONTEXT);
	for (size_t k = 0; c->post && c->post[k]; k++)
		vw_buf_printf(out, _("Then: %s\n"), c->post[k]);
	vw_buf_addc(out, '\n');
	free(m1);
	free(m2);
	free(la);
	free(lb);
}

static void show_notes(struct vw_buf *out, const struct planned *p)
{
	if (!p->info.nnotes)
		return;
	vw_buf_adds(out, _("Notes:\n"));
	for (size_t i = 0; i < p->info.nnotes; i++)
		vw_buf_printf(out, "  - %s\n", p->info.notes[i]);
	vw_buf_addc(out, '\n');
}

static void show_checks(struct vw_buf *out, const struct vw_hostplan *hp)
{
	if (!hp->nchecks)
		return;
	vw_buf_adds(out, _("Checks after the rebuild, before any reboot:\n"));
	for (size_t i = 0; i < hp->nchecks; i++) {
		vw_buf_printf(out, "  %s\n    %s", hp->checks[i].cmd, _("must list:"));
		for (size_t k = 0; hp->checks[i].expect[k]; k++)
			vw_buf_printf(out, " %s", hp->checks[i].expect[k]);
		vw_buf_addc(out, '\n');
	}
	vw_buf_addc(out, '\n');
}

static void show_header(struct vw_buf *out, const struct planned *p)
{
	if (p->info.hp.ndevs) {
		vw_buf_printf(out, _("Devices for vfio-pci (%s):"),
			      p->info.hp.dynamic ? _("while the VM runs, through libvirt hooks") :
			      p->info.hp.by_address ? _("by address") : _("by id"));
		for (size_t i = 0; i < p->info.hp.ndevs; i++)
			vw_buf_printf(out, " %s", p->f.devs[p->info.hp.devs[i]].addr);
		vw_buf_addc(out, '\n');
	}
	if (p->c.nmdevs) {
		vw_buf_adds(out, _("Mediated devices (vGPUs) for the VM:"));
		for (size_t i = 0; i < p->c.nmdevs; i++)
			vw_buf_printf(out, " %s", p->c.mdevs[i]);
		vw_buf_addc(out, '\n');
	}
	if (p->info.hp.nvfs) {
		vw_buf_adds(out, _("Virtual functions for vfio-pci (at boot, by vfiowiz-sriov.service):"));
		for (size_t i = 0; i < p->info.hp.nvfs; i++)
			vw_buf_printf(out, " %s", p->f.devs[p->info.hp.vfs[i]].addr);
		vw_buf_addc(out, '\n');
	}
	vw_buf_printf(out, _("Bootloader: %s; initramfs: %s\n\n"),
		      p->info.hp.boot ? p->info.hp.boot->name : _("none"),
		      p->info.hp.irfs ? p->info.hp.irfs->name : _("none"));
}

int vw_cmd_plan(const struct vw_cli *cli)
{
	struct planned p;
	struct vw_buf out = VW_BUF_INIT;
	int rc = build(cli, &p);

	if (rc) {
		planned_done(&p);
		return rc;
	}
	if (cli->format && strcmp(cli->format, "text")) {	/* tui/cmd_ansible.c */
		rc = vw_cli_plan_export(cli, &p.plan, &p.info.hp, p.c.access.vnc_password);
		planned_done(&p);
		return rc;
	}
	show_header(&out, &p);
	show_notes(&out, &p);
	if (!p.plan.n) {
		vw_buf_adds(&out, _("Nothing to change: the host already holds what the answers ask for.\n"));
	} else {
		for (size_t i = 0; i < p.plan.n; i++)
			show_change(&out, &p.plan, i, p.c.access.vnc_password);
		if (p.plan.npost) {
			vw_buf_adds(&out, _("Post-commands, in this order, after the files are written:\n"));
			for (size_t i = 0; i < p.plan.npost; i++)
				vw_buf_printf(&out, "  %s\n", p.plan.post_cmds[i]);
			vw_buf_addc(&out, '\n');
		}
		show_checks(&out, &p.info.hp);
	}
	if (p.info.vm.commands[0])
		/* TRANSLATORS: followed by qm create/set lines (Proxmox). */
		vw_buf_printf(&out, "%s\n%s\n", _("The same VM configuration as commands:"), p.info.vm.commands);
	vw_access_connect_text(&out, &p.c, &p.info.vm, &p.info.acc);
	rc = vw_cli_write(&out);
	vw_buf_done(&out);
	planned_done(&p);
	return rc;
}

/* ---- apply ------------------------------------------------------------------- */

struct asker {
	const struct vw_plan *plan;
	const char *secret;
	bool quit;
};

/* y: apply it; n: skip it; q: skip it and every later one. */
static bool ask(const struct vw_change *c, size_t i, void *arg)
{
	struct asker *a = arg;
	struct vw_buf out = VW_BUF_INIT;
	char *line = NULL;
	size_t cap = 0;
	bool yes = false;

	(void)c;
	if (a->quit)
		return false;
	show_change(&out, a->plan, i, a->secret);
	vw_cli_write(&out);
	vw_buf_done(&out);
	for (;;) {
		char *s;

		fputs(_("Apply this change? [y/n/q] "), stdout);
		fflush(stdout);
		if (getline(&line, &cap, stdin) < 0) {
			/* End of input: nothing more is accepted. */
			fputc('\n', stdout);
			a->quit = true;
			break;
		}
		s = vw_strtrim(line);
		/* TRANSLATORS: the answers to "Apply this change? [y/n/q]";
		 * keep y, n and q working too. */
		if (!strcasecmp(s, "y") || !strcasecmp(s, "yes") || !strcmp(s, _("y"))) {
			yes = true;
			break;
		}
		if (!strcasecmp(s, "n") || !strcasecmp(s, "no") || !strcmp(s, _("n")))
			break;
		if (!strcasecmp(s, "q") || !strcmp(s, _("q"))) {
			a->quit = true;
			break;
		}
	}
	free(line);
	fputc('\n', stdout);
	return yes;
}

static const char *item_state(enum vw_item_state s)
{
	switch (s) {
	/* TRANSLATORS: the outcome of one file of `vfiowiz apply`, in a column
	 * of 12. */
	case VW_ITEM_SKIPPED: return _("skipped");
	case VW_ITEM_PENDING: return _("not written");
	case VW_ITEM_WRITTEN: return _("written");
	case VW_ITEM_FAILED: return _("FAILED");
	}
	return "?";
}

static void show_posts(struct vw_buf *out, const struct vw_post_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct vw_post_run *r = &runs[i];

		switch (r->state) {
		case VW_POST_RAN:
			vw_buf_printf(out, _("Ran: %s (exit %d)\n"), r->cmd, r->status);
			break;
		case VW_POST_FAILED:
			vw_buf_printf(out, _("FAILED: %s (exit %d)\n"), r->cmd, r->status);
			break;
		case VW_POST_WOULD_RUN:
			vw_buf_printf(out, _("Would run: %s\n"), r->cmd);
			break;
		case VW_POST_NOT_RUN:
			vw_buf_printf(out, _("Not run (a write failed): %s\n"), r->cmd);
			break;
		}
		if (r->output && *r->output) {
			vw_buf_adds(out, r->output);
			if (r->output[strlen(r->output) - 1] != '\n')
				vw_buf_addc(out, '\n');
		}
	}
}

/* Run the image checks whose rebuild ran (or, under a sysroot, whose
 * listing was recorded).  Returns the number of failed checks. */
static int run_checks(struct vw_buf *out, const struct planned *p, const struct vw_apply_result *res)
{
	int failed = 0;

	for (size_t i = 0; i < p->info.hp.nchecks; i++) {
		const struct vw_check *ck = &p->info.hp.checks[i];
		const struct vw_post_run *after = NULL;
		struct vw_exec_result er;
		struct vw_err err = { 0 };
		char **argv = NULL;
		size_t missing = 0;

		for (size_t k = 0; k < res->npost; k++)
			if (!strcmp(res->post[k].cmd, ck->after))
				after = &res->post[k];
		if (!after || after->state == VW_POST_NOT_RUN || after->state == VW_POST_FAILED)
			continue;
		if (vw_exec_split(ck->cmd, &argv, &err) < 0)
			continue;
		if (vw_exec_run(p->sr, (const char *const *)argv, &er, &err) < 0 ||
		    er.source == VW_EXEC_LISTED) {
			if (after->state == VW_POST_WOULD_RUN)
				vw_buf_printf(out, _("Would check: %s\n"), ck->cmd);
			else {
				vw_buf_printf(out, _("Check FAILED: %s: %s\n"), ck->cmd, err.msg);
				failed++;
			}
			vw_exec_result_done(&er);
			vw_strv_free(argv);
			continue;
		}
		for (size_t k = 0; ck->expect[k]; k++) {
			if (strstr(er.output, ck->expect[k]))
				continue;
			if (!missing++)
				vw_buf_printf(out, _("Check FAILED: %s does not list:"), ck->cmd);
			vw_buf_printf(out, " %s", ck->expect[k]);
		}
		if (missing) {
			vw_buf_adds(out, _("\n  Do not reboot before the initramfs holds them: rebuild it and look again.\n"));
			failed++;
		} else {
			vw_buf_printf(out, _("Check OK: %s lists the vfio modules and our configuration%s.\n"),
				      ck->cmd, er.source == VW_EXEC_RECORDED ? _(" (recorded output)") : "");
		}
		vw_exec_result_done(&er);
		vw_strv_free(argv);
	}
	return failed;
}

int vw_cmd_apply(const struct vw_cli *cli)
{
	struct planned p;
	struct vw_buf out = VW_BUF_INIT;
	struct vw_apply_result res = { 0 };
	struct vw_apply_opts opts = { 0 };
	struct vw_err err = { 0 };
	struct asker a = { 0 };
	int rc = build(cli, &p), r;

	if (rc) {
		planned_done(&p);
		return rc;
	}
	show_header(&out, &p);
	show_notes(&out, &p);
	if (!p.plan.n) {
		vw_buf_adds(&out, _("Nothing to change: the host already holds what the answers ask for.\n"));
		rc = vw_cli_write(&out);
		vw_buf_done(&out);
		planned_done(&p);
		return rc;
	}
	vw_cli_write(&out);
	vw_buf_done(&out);
	a.plan = &p.plan;
	a.secret = p.c.access.vnc_password;
	if (cli->yes) {
		/* Shown all the same: nothing is written that was not shown. */
		for (size_t i = 0; i < p.plan.n; i++)
			show_change(&out, &p.plan, i, a.secret);
		vw_cli_write(&out);
		vw_buf_done(&out);
	} else {
		opts.accept_fn = ask;
		opts.accept_arg = &a;
	}
	opts.dry = cli->dry_run;
	r = vw_apply_plan(p.sr, &p.plan, &opts, &res, &err);
	if (cli->dry_run)
		vw_buf_adds(&out, _("Dry run: nothing was written and nothing ran.\n"));
	if (res.tidy.temps || res.tidy.journals)
		vw_buf_printf(&out, _("Cleaned up what an interrupted apply left: %zu temporary files, %zu journals without a manifest.\n"),
			      res.tidy.temps, res.tidy.journals);
	if (res.journal_id)
		vw_buf_printf(&out, _("Journal: %s (undo with: vfiowiz undo %s)\n"), res.journal_id,
			      res.journal_id);
	for (size_t i = 0; i < res.nitems; i++) {
		vw_buf_adds(&out, "  ");	/* a column by display width: states are translated */
		vw_ui_pad(&out, item_state(res.items[i].state), 12);
		vw_buf_printf(&out, " /%s", res.items[i].path);
		if (res.items[i].error)
			vw_buf_printf(&out, ": %s", res.items[i].error);
		vw_buf_addc(&out, '\n');
	}
	show_posts(&out, res.post, res.npost);
	if (r == 0 && !cli->dry_run && run_checks(&out, &p, &res))
		r = -EIO;
	if (r == 0 && res.written && p.c.test_boot)
		vw_buf_adds(&out, _("Reboot once to try the new kernel parameters (a one-shot test boot).\n"));
	else if (r == 0 && res.written)
		vw_buf_adds(&out, _("Reboot for the changes to take effect; then run the wizard again to verify.\n"));
	vw_cli_write(&out);
	vw_buf_done(&out);
	if (r < 0) {
		if (*err.msg)
			fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
		rc = VW_EXIT_ERROR;
	}
	vw_apply_result_done(&res);
	planned_done(&p);
	return rc;
}

/* ---- undo -------------------------------------------------------------------- */

static const char *journal_state(enum vw_journal_state s)
{
	switch (s) {
	case VW_JOURNAL_APPLIED: return _("applied");
	case VW_JOURNAL_PARTIAL: return _("partly applied");
	case VW_JOURNAL_INTERRUPTED: return _("interrupted");
	case VW_JOURNAL_UNDONE: return _("undone");
	case VW_JOURNAL_EMPTY: return _("empty");
	}
	return "?";
}

static bool confirm(const char *question)
{
	char *line = NULL;
	size_t cap = 0;
	bool yes = false;

	fputs(question, stdout);
	fflush(stdout);
	if (getline(&line, &cap, stdin) >= 0) {
		char *s = vw_strtrim(line);
		yes = !strcasecmp(s, "y") || !strcasecmp(s, "yes") || !strcmp(s, _("y"));
	}
	free(line);
	return yes;
}

/* What undo would put back for the files changed since: the diff from
 * what is there now to what undo writes. */
static void show_stale(struct vw_buf *out, const struct vw_sysroot *sr, const struct vw_undo_result *res)
{
	for (size_t i = 0; i < res->nstale; i++) {
		const struct vw_undo_stale *s = &res->stale[i];
		char *cur = NULL, *a = vw_xasprintf("a/%s", s->path), *b = vw_xasprintf("b/%s", s->path);
		size_t len = 0;

		vw_buf_printf(out, _("/%s changed since the apply; undo would make this change to it:\n"),
			      s->path);
		if (s->secret)
			vw_buf_adds(out, _("  (it holds a secret: the diff is not shown)\n"));
		else if (vw_sysroot_read(sr, s->path, &cur, &len, VW_PLAN_MAX_FILE, NULL) == 0 || !cur)
			vw_diff_unified(out, cur ? cur : "", cur ? len : 0, s->restore, s->restore_len,
					cur ? a : NULL, s->existed ? b : NULL, 3);
		free(cur);
		free(a);
		free(b);
	}
}

/* Post-commands undo does not take back: say what stays. */
static void show_kept(struct vw_buf *out, const struct vw_undo_result *res)
{
	for (size_t i = 0; res->images[i]; i++)
		vw_buf_printf(out, _("Kept the disk image %s that the apply created (a guest may be installed on it); if you do not need it: rm %s\n"),
			      res->images[i], res->images[i]);
	for (size_t i = 0; res->kept[i]; i++)
		if (strncmp(res->kept[i], "qemu-img ", 9))
			vw_buf_printf(out, _("Not taken back: %s\n"), res->kept[i]);
}

int vw_cmd_undo(const struct vw_cli *cli)
{
	struct vw_sysroot *sr = NULL;
	struct vw_journal_info *list = NULL;
	struct vw_undo_result res;
	struct vw_undo_opts uo = { .dry = cli->dry_run, .force = cli->force_files,
				   .skip = cli->skip_files };
	struct vw_buf out = VW_BUF_INIT;
	struct vw_err err = { 0 };
	const struct vw_journal_info *target = NULL;
	int n, r, rc = 0;

	if (vw_sysroot_open(&sr, cli->sysroot, &err) < 0)
		return fail(&err);
	n = vw_undo_list(sr, &list, &err);
	if (n < 0) {
		vw_sysroot_free(sr);
		return fail(&err);
	}
	if (cli->list) {
		for (int i = 0; i < n; i++) {
			vw_buf_printf(&out, "%-22s ", list[i].id);
			vw_buf_printf(&out, ngettext("%zu file", "%zu files", list[i].nfiles), list[i].nfiles);
			vw_buf_printf(&out, ", %s\n", journal_state(list[i].state));
		}
		if (!n)
			vw_buf_adds(&out, _("No applies journaled.\n"));
		rc = vw_cli_write(&out);
		goto out;
	}
	for (int i = 0; i < n && !target; i++)
		if (cli->arg ? !strcmp(list[i].id, cli->arg) : list[i].state != VW_JOURNAL_UNDONE &&
							       list[i].state != VW_JOURNAL_EMPTY)
			target = &list[i];
	if (!target) {
		/* Nothing to do is done (exit 0); a journal that is not there is not. */
		if (cli->arg) {
			fprintf(stderr, _("%s: no journal %s (see: vfiowiz undo --list)\n"), PACKAGE, cli->arg);
			rc = VW_EXIT_ERROR;
		} else {
			fputs(_("Nothing to undo.\n"), stdout);
		}
		goto out;
	}
	if (!cli->yes && !cli->dry_run) {
		char *q = vw_xasprintf(ngettext("Undo %s (%zu file, %s): restore it as it was before? [y/n] ",
						"Undo %s (%zu files, %s): restore every file as it was before? [y/n] ",
						target->nfiles),
				       target->id, target->nfiles, journal_state(target->state));
		bool yes = confirm(q);

		free(q);
		if (!yes) {
			fputs(_("Nothing undone.\n"), stdout);
			goto out;
		}
	}
	r = vw_undo_opts(sr, target->id, &uo, &res, &err);
	if (res.tidy.temps || res.tidy.journals)
		vw_buf_printf(&out, _("Cleaned up what an interrupted apply left: %zu temporary files, %zu journals without a manifest.\n"),
			      res.tidy.temps, res.tidy.journals);
	if (r < 0 && !res.posts_failed) {
		show_stale(&out, sr, &res);
		vw_cli_write(&out);
		vw_undo_result_done(&res);
		rc = fail(&err);
		goto out;
	}
	if (cli->dry_run)
		vw_buf_printf(&out, _("Dry run: undoing %s would restore %zu files and remove %zu (%zu already as before); nothing was written and nothing ran.\n"),
			      res.journal_id, res.restored, res.removed, res.unchanged);
	else
		vw_buf_printf(&out, _("Undid %s: %zu restored, %zu removed, %zu already as before.\n"), res.journal_id,
			      res.restored, res.removed, res.unchanged);
	if (res.skipped)
		vw_buf_printf(&out, _("Left as they are (--skip-file): %zu files.\n"), res.skipped);
	show_posts(&out, res.runs, res.nruns);
	if (r < 0)
		rc = VW_EXIT_ERROR;
	show_kept(&out, &res);
	if (!cli->dry_run) {
		/* One undo takes back one apply: say what else still stands. */
		size_t others = 0;
		const char *newest = NULL;

		for (int i = 0; i < n; i++)
			if (&list[i] != target && list[i].state != VW_JOURNAL_UNDONE &&
			    list[i].state != VW_JOURNAL_EMPTY && !others++)
				newest = list[i].id;
		if (others)
			vw_buf_printf(&out, ngettext("Still in effect: %zu other apply (%s); vfiowiz undo again takes it back too.\n",
						     "Still in effect: %zu other applies (the newest %s); run vfiowiz undo again for each.\n",
						     others),
				      others, newest);
	}
	vw_undo_result_done(&res);
	if (vw_cli_write(&out))
		rc = VW_EXIT_ERROR;
	if (rc && *err.msg)
		fprintf(stderr, "%s: %s\n", PACKAGE, err.msg);
out:
	vw_buf_done(&out);
	vw_undo_list_free(list, n > 0 ? (size_t)n : 0);
	vw_sysroot_free(sr);
	return rc;
}
