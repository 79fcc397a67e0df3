/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - vfiowiz entry point: locale, options, and the command table
 * that dispatches to the commands (tui/cli.c, tui/cmd_*.c, tui/wizard.c). */
#include "cli.h"
#include "datadir.h"

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Options, one bit each: a command lists the ones it takes (as tmux's
 * cmd_entry.args); any other is refused by name.  --help and --version
 * go with every command. */
enum {
	OPT_SYSROOT = 256, OPT_JSON, OPT_ALL, OPT_DEMO, OPT_LIST, OPT_ANSWERS, OPT_DRY_RUN,
	OPT_SCRIPT, OPT_DUMP, OPT_SIZE, OPT_START_AT, OPT_MONO, OPT_FORMAT, OPT_FORCE_FILE,
	OPT_SKIP_FILE, OPT_OUTPUT, OPT_YES, OPT_END
};
#define O(opt) (1u << ((opt) - OPT_SYSROOT))

static const struct option long_opts[] = {
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "demo", no_argument, NULL, OPT_DEMO },
	{ "output", required_argument, NULL, 'o' },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "answers", required_argument, NULL, OPT_ANSWERS },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "yes", no_argument, NULL, 'y' },
	{ "script", required_argument, NULL, OPT_SCRIPT },
	{ "dump", required_argument, NULL, OPT_DUMP },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "start-at", required_argument, NULL, OPT_START_AT },
	{ "mono", no_argument, NULL, OPT_MONO },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "force-file", required_argument, NULL, OPT_FORCE_FILE },
	{ "skip-file", required_argument, NULL, OPT_SKIP_FILE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

struct command {
	const char *name;
	int (*run)(const struct vw_cli *cli);
	const char *help;	/* N_(), translated when shown */
	unsigned opts;		/* O() of the options it takes */
};

static const struct command commands[] = {
	{ "wizard", vw_cmd_wizard, N_("the full-screen wizard (what runs without a command)"),
	  O(OPT_SYSROOT) | O(OPT_DEMO) | O(OPT_START_AT) | O(OPT_MONO) | O(OPT_SCRIPT) |
		  O(OPT_DUMP) | O(OPT_SIZE) },
	{ "check", vw_cmd_check, N_("check whether this host can do GPU passthrough"),
	  O(OPT_SYSROOT) | O(OPT_DEMO) | O(OPT_JSON) },
	{ "groups", vw_cmd_groups, N_("list IOMMU groups, their devices and verdicts"),
	  O(OPT_SYSROOT) | O(OPT_DEMO) | O(OPT_JSON) | O(OPT_ALL) },
	{ "snapshot", vw_cmd_snapshot, N_("write a redacted snapshot of this host for support"),
	  O(OPT_SYSROOT) | O(OPT_DEMO) | O(OPT_OUTPUT) | O(OPT_LIST) | O(OPT_YES) },
	{ "guest-check", vw_cmd_guest_check, N_("inside the VM: check the passed-through GPUs, NVLink and P2P"),
	  O(OPT_SYSROOT) | O(OPT_DEMO) | O(OPT_JSON) },
	{ "plan", vw_cmd_plan, N_("show every change the answers file asks for, as diffs; write nothing"),
	  O(OPT_SYSROOT) | O(OPT_DEMO) | O(OPT_ANSWERS) | O(OPT_FORMAT) | O(OPT_OUTPUT) },
	{ "apply", vw_cmd_apply, N_("make the planned changes, asking for each (journaled)"),
	  O(OPT_SYSROOT) | O(OPT_ANSWERS) | O(OPT_YES) | O(OPT_DRY_RUN) },
	{ "undo", vw_cmd_undo, N_("restore the files of an apply (--list: list the applies)"),
	  O(OPT_SYSROOT) | O(OPT_LIST) | O(OPT_YES) | O(OPT_DRY_RUN) | O(OPT_FORCE_FILE) |
		  O(OPT_SKIP_FILE) },
};

/* Refuse the options given that cmd does not take, naming the first. */
static int check_opts(const struct command *cmd, unsigned given)
{
	for (const struct option *o = long_opts; o->name; o++) {
		int v = o->val == 'o' ? OPT_OUTPUT : o->val == 'y' ? OPT_YES : o->val;

		if (v < OPT_SYSROOT || v >= OPT_END || !(given & O(v)) || (cmd->opts & O(v)))
			continue;
		fprintf(stderr, _("%s %s: --%s is not an option of %s\n"), PACKAGE, cmd->name, o->name,
			cmd->name);
		return VW_EXIT_ERROR;
	}
	return 0;
}

/* A repeated option's values, NULL-terminated. */
static void add_arg(const char ***v, size_t *n, const char *arg)
{
	*v = vw_xreallocarray(*v, *n + 2, sizeof(char *));
	(*v)[(*n)++] = arg;
	(*v)[*n] = NULL;
}

static void usage(FILE *out)
{
	fprintf(out, _("Usage: %s [OPTIONS] [COMMAND] [ARGS]\n"), PACKAGE);
	fputs(_("\nCommands:\n"), out);
	for (size_t i = 0; i < VW_ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-12s %s\n", commands[i].name, _(commands[i].help));
	fputs(_("\nOptions:\n"
		"  --sysroot DIR  read and write the host under DIR instead of /\n"
		"  --demo         use the built-in demo host\n"
		"  --json         machine-readable output (check, groups)\n"
		"  --all          groups: also list devices in no IOMMU group\n"
		"  -h, --help     show this help\n"
		"  -V, --version  show the version\n"), out);
	fputs(_("  --sysroot FILE.tar.gz  replay a snapshot (checked, then unpacked privately)\n"
		"  -o, --output FILE  snapshot: the file to write\n"
		"  --list         snapshot: list every file it would hold, write nothing\n"
		"  -y, --yes      do not ask for confirmation\n"), out);
	fputs(_("  --start-at STEP  wizard: open on this step (checks, gpu, ... verify)\n"
		"  --mono         wizard: no colours (as NO_COLOR=1)\n"
		"  --script KEYS  wizard, headless: keys like \"down,space,enter,F1,type:text\"\n"
		"  --dump DIR     wizard, headless: a text dump of the screen after every key\n"
		"  --size COLSxLINES  wizard, headless: the screen size (80x24)\n"), out);
	fputs(_("  --format ansible  plan: an Ansible playbook making the same changes\n"
		"                 (-o FILE: into FILE, files YAML cannot hold in files/)\n"), out);
	fputs(_("  --answers FILE plan, apply: the answers file (docs/answers.example.conf)\n"
		"  --dry-run      apply: check everything, write and run nothing\n"
		"\nExit status: 0 done (or nothing to do), 1 and 2 (check) changes needed or\n"
		"not possible, 3 error: bad usage, a bad answers file, a refused or failed plan.\n"), out);
	fputs(_("\nundo: --list, --yes, --dry-run (show what it would restore and run;\n"
		"write nothing), --force-file PATH (restore PATH although it changed since),\n"
		"--skip-file PATH (leave PATH as it is, undo the rest).  Each command takes\n"
		"only its own options.\n"), out);
}

/* The locale of the environment.  When it is not installed on this host
 * (LANG=fr_FR.UTF-8 forwarded by SSH to a host that never generated it),
 * glibc would fall back to C and English: take C.UTF-8 for the characters
 * and ask for the language through LANGUAGE, which gettext honours in any
 * locale but C.  The catalogs come from the build tree when the program
 * runs from one, else from $(localedir) (core/datadir.h). */
static void locale_init(void)
{
	const char *vars[] = { "LC_ALL", "LC_MESSAGES", "LANG" }, *want = NULL;
#if ENABLE_NLS
	char *dir;
#endif

	if (!setlocale(LC_ALL, "")) {
		for (size_t i = 0; i < VW_ARRAY_SIZE(vars) && !want; i++)
			if (getenv(vars[i]) && *getenv(vars[i]))
				want = getenv(vars[i]);
		if (setlocale(LC_ALL, "C.UTF-8") && want && strcmp(want, "C") &&
		    strcmp(want, "POSIX") && !(getenv("LANGUAGE") && *getenv("LANGUAGE"))) {
			char *lang = vw_xstrndup(want, strcspn(want, ".@"));

			setenv("LANGUAGE", lang, 1);
			free(lang);
		}
	}
#if ENABLE_NLS
	dir = vw_datadir(VW_DATA_LOCALE);
	bindtextdomain(PACKAGE, dir);
	textdomain(PACKAGE);
	free(dir);
#endif
}

int main(int argc, char **argv)
{
	struct vw_cli cli = { 0 };
	const struct command *cmd = NULL;
	size_t nforce = 0, nskip = 0;
	unsigned given = 0;
	bool help = false;
	int c, rc;

	locale_init();
	/* Options may come before or after the command ("check --json"). */
	while ((c = getopt_long(argc, argv, "+hVo:y", long_opts, NULL)) != -1 || optind < argc) {
		if (c == -1) {
			if (!cli.argv) {
				cli.argv = &argv[optind];
				optind++;
				cli.argc = 1;
			} else if (!strcmp(cli.argv[0], "undo") && !cli.arg) {
				cli.arg = argv[optind++];	/* the journal id */
			} else {
				fprintf(stderr, _("%s: unexpected argument '%s'\n"), PACKAGE, argv[optind]);
				return VW_EXIT_ERROR;
			}
			continue;
		}
		if (c >= OPT_SYSROOT && c < OPT_END)
			given |= O(c);
		switch (c) {
		case OPT_SYSROOT: cli.sysroot = optarg; break;
		case OPT_JSON: cli.json = true; break;
		case OPT_ALL: cli.all = true; break;
		case OPT_DEMO: cli.demo = true; break;
		case 'o': cli.output = optarg; given |= O(OPT_OUTPUT); break;
		case OPT_LIST: cli.list = true; break;
		case 'y': cli.yes = true; given |= O(OPT_YES); break;
		case OPT_ANSWERS: cli.answers = optarg; break;
		case OPT_DRY_RUN: cli.dry_run = true; break;
		case OPT_SCRIPT: cli.script = optarg; break;
		case OPT_DUMP: cli.dump = optarg; break;
		case OPT_SIZE: cli.size = optarg; break;
		case OPT_START_AT: cli.start_at = optarg; break;
		case OPT_MONO: cli.mono = true; break;
		case OPT_FORMAT: cli.format = optarg; break;
		case OPT_FORCE_FILE: add_arg(&cli.force_files, &nforce, optarg); break;
		case OPT_SKIP_FILE: add_arg(&cli.skip_files, &nskip, optarg); break;
		case 'h': help = true; break;
		case 'V': printf("%s %s\n", PACKAGE, VERSION); return 0;
		default: usage(stderr); return VW_EXIT_ERROR;
		}
	}
	if (!cli.argv) {	/* no command: the wizard */
		static char *wizard[] = { "wizard", NULL };

		cli.argv = wizard;
		cli.argc = 1;
	}
	for (size_t i = 0; i < VW_ARRAY_SIZE(commands); i++)
		if (!strcmp(cli.argv[0], commands[i].name))
			cmd = &commands[i];
	rc = VW_EXIT_ERROR;
	/* --help after a command still refuses what that command does not take. */
	if (!cmd && !help)
		fprintf(stderr, _("%s: unknown command '%s' (try --help)\n"), PACKAGE, cli.argv[0]);
	else if (cmd && check_opts(cmd, given))
		;
	else if (help)
		usage(stdout), rc = 0;
	else if (!vw_cli_format_check(&cli) && !vw_cli_open_archive(&cli))
		rc = cmd->run(&cli);
	free(cli.force_files);
	free(cli.skip_files);
	return rc;
}
