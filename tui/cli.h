/* cli.h - the command-line front end: global options and subcommands.
 *
 * Each subcommand is one function with this signature, listed in the const
 * table in main.c; it prints (the core never does) and returns the process
 * exit status. */
#ifndef VW_CLI_H
#define VW_CLI_H

#include "facts.h"
#include "sysroot.h"

struct vw_cli {
	const char *sysroot;	/* --sysroot, NULL = live host */
	bool json;		/* --json */
	bool all;		/* --all */
	bool demo;		/* --demo */
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

#endif
