/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.h - the command-line front end: global options and subcommands.
 *
 * Each subcommand is one function with this signature, listed in the const
 * table in main.c (which only dispatches); it prints (the core never does)
 * and returns the process exit status.  The helpers below and check/groups
 * are in tui/cli.c. */
#ifndef VW_CLI_H
#define VW_CLI_H

#include "facts.h"
#include "sysroot.h"

struct vw_cli {
	const char *sysroot;	/* --sysroot, NULL = live host */
	bool json;		/* --json */
	bool all;		/* --all */
	bool demo;		/* --demo */
	const char *output;	/* snapshot: -o, --output FILE */
	const char *snapshot;	/* --sysroot FILE.tar.gz as given (sysroot is then
				   its private unpacked copy), NULL otherwise: show
				   this name to people rather than the copy's */
	bool list;		/* snapshot: --list (write nothing) */
	bool yes;		/* --yes: do not ask */
	const char *answers;	/* plan, apply: --answers FILE */
	bool dry_run;		/* apply: --dry-run (write and run nothing) */
	const char *arg;	/* undo: the journal id, NULL when not given */
	const char **force_files;	/* undo: --force-file PATH..., NULL-terminated or NULL */
	const char **skip_files;	/* undo: --skip-file PATH..., NULL-terminated or NULL */
	const char *script;	/* wizard: --script KEYS (headless) */
	const char *dump;	/* wizard: --dump DIR */
	const char *size;	/* wizard: --size COLSxLINES */
	const char *start_at;	/* wizard: --start-at STEP */
	bool mono;		/* wizard: --mono */
	const char *format;	/* plan: --format text|ansible, NULL = text */
	int argc;		/* arguments left after the subcommand */
	char **argv;
};

/* Exit status for errors (bad usage, unreadable root). */
#define VW_EXIT_ERROR 3

/* Open the root named by the options (the demo host for --demo) and probe it.
 * On failure prints the error and returns VW_EXIT_ERROR; else 0. */
int vw_cli_probe(const struct vw_cli *cli, struct vw_sysroot **sr, struct vw_facts *f);
/* Write a buffer to stdout in one go; returns 0 or VW_EXIT_ERROR. */
int vw_cli_write(const struct vw_buf *b);
/* Directory of the built-in demo host; caller frees. NULL when not found. */
char *vw_cli_demo_dir(void);

int vw_cmd_check(const struct vw_cli *cli);
int vw_cmd_groups(const struct vw_cli *cli);
/* tui/wizard.c: the full-screen wizard. */
int vw_cmd_wizard(const struct vw_cli *cli);
int vw_cmd_snapshot(const struct vw_cli *cli);
int vw_cmd_guest_check(const struct vw_cli *cli);
/* tui/cmd_plan.c: exit 0 done (or nothing to do), VW_EXIT_ERROR otherwise. */
int vw_cmd_plan(const struct vw_cli *cli);
int vw_cmd_apply(const struct vw_cli *cli);
int vw_cmd_undo(const struct vw_cli *cli);

/* tui/cmd_ansible.c: --format.  vw_cli_format_check() refuses an unknown
 * format, or one given to a command other than plan (VW_EXIT_ERROR after
 * printing why; else 0).  vw_cli_plan_export() writes the plan in
 * cli->format (ansible: a playbook on stdout, or in -o FILE with files/
 * next to it); returns the exit status. */
struct vw_plan;
struct vw_hostplan;
int vw_cli_format_check(const struct vw_cli *cli);
int vw_cli_plan_export(const struct vw_cli *cli, const struct vw_plan *plan,
		       const struct vw_hostplan *hp, const char *secret);

/* When --sysroot names a snapshot archive (.tar.gz, .tgz, .tar), import it
 * safely into a private temporary folder (removed at exit) and point
 * cli->sysroot there.  Returns 0, or VW_EXIT_ERROR after printing why the
 * archive was refused. */
int vw_cli_open_archive(struct vw_cli *cli);

#endif
