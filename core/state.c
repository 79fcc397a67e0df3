/* state.c - the wizard's state file: the answers format plus a progress
 * section (libconfuse). */
#include "state.h"

#include <confuse.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"

#define STATE_VERSION 1

static cfg_opt_t progress_opts[] = {
	CFG_INT("version", STATE_VERSION, CFGF_NONE),
	CFG_STR("step", "", CFGF_NONE),
	CFG_STR("boot_id", "", CFGF_NONE),
	CFG_BOOL("applied", cfg_false, CFGF_NONE),
	CFG_STR("applied_boot_id", "", CFGF_NONE),
	CFG_STR("journal", "", CFGF_NONE),
	CFG_END(),
};

static cfg_opt_t state_opts[] = {
	CFG_SEC("progress", progress_opts, CFGF_NONE),
	CFG_END(),
};

void vw_state_init(struct vw_state *s)
{
	memset(s, 0, sizeof(*s));
	vw_choices_init(&s->choices);
	s->step = vw_xstrdup("");
	s->boot_id = vw_xstrdup("");
	s->applied_boot_id = vw_xstrdup("");
	s->journal = vw_xstrdup("");
}

void vw_state_done(struct vw_state *s)
{
	vw_choices_done(&s->choices);
	free(s->step);
	free(s->boot_id);
	free(s->applied_boot_id);
	free(s->journal);
	memset(s, 0, sizeof(*s));
}

/* libconfuse reports through a callback: keep the first message. */
static struct vw_err *parse_err;
static const char *parse_name;
static int line_offset;

static void errfunc(cfg_t *cfg, const char *fmt, va_list ap)
{
	char msg[512];

	if (!parse_err || parse_err->code)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (cfg && cfg->line)
		vw_err_set(parse_err, -EINVAL, "%s:%d: %s", parse_name, cfg->line + line_offset, msg);
	else
		vw_err_set(parse_err, -EINVAL, "%s: %s", parse_name, msg);
}

/* Where the progress section starts: a line "progress {" (our writer puts
 * it last); len when there is none. */
static size_t progress_start(const char *text, size_t len, int *line)
{
	size_t i = 0;

	*line = 0;
	while (i < len) {
		size_t e = i;

		while (e < len && text[e] != '\n')
			e++;
		if (e - i >= 8 && !strncmp(text + i, "progress", 8)) {
			size_t k = i + 8;

			while (k < e && (text[k] == ' ' || text[k] == '\t'))
				k++;
			if (k < e && text[k] == '{')
				return i;
		}
		(*line)++;
		i = e + 1;
	}
	return len;
}

int vw_state_parse(struct vw_state *s, const char *text, size_t len, const char *name,
		   struct vw_err *err)
{
	struct vw_err local = { 0 };
	int line;
	size_t at = progress_start(text, len, &line);
	cfg_t *cfg, *pg;
	char *tail;
	int r;

	vw_state_done(s);
	vw_state_init(s);
	r = vw_answers_parse(&s->choices, text, at, name, err);
	if (r < 0)
		return r;
	if (at == len)
		return 0;	/* no progress yet: a plain answers file */
	tail = vw_xstrndup(text + at, len - at);
	cfg = cfg_init(state_opts, CFGF_NONE);
	if (!cfg) {
		free(tail);
		return vw_err_set(err, -ENOMEM, _("%s: cannot set up the parser"), name);
	}
	parse_err = err ? err : &local;
	vw_err_clear(parse_err);
	parse_name = name;
	line_offset = line;
	cfg_set_error_function(cfg, errfunc);
	r = cfg_parse_buf(cfg, tail);
	parse_err = NULL;
	free(tail);
	if (r != CFG_SUCCESS) {
		cfg_free(cfg);
		if (!err || !err->code)
			vw_err_set(err, -EINVAL, _("%s: cannot parse the progress section"), name);
		return -EINVAL;
	}
	pg = cfg_getsec(cfg, "progress");
	if (cfg_getint(pg, "version") > STATE_VERSION) {
		cfg_free(cfg);
		return vw_err_set(err, -EINVAL, _("%s: written by a newer vfiowiz"), name);
	}
	free(s->step);
	s->step = vw_xstrdup(cfg_getstr(pg, "step"));
	free(s->boot_id);
	s->boot_id = vw_xstrdup(cfg_getstr(pg, "boot_id"));
	s->applied = cfg_getbool(pg, "applied");
	free(s->applied_boot_id);
	s->applied_boot_id = vw_xstrdup(cfg_getstr(pg, "applied_boot_id"));
	free(s->journal);
	s->journal = vw_xstrdup(cfg_getstr(pg, "journal"));
	cfg_free(cfg);
	return 0;
}

int vw_state_load(struct vw_state *s, const struct vw_sysroot *sr, struct vw_err *err)
{
	char *text = NULL, *name = vw_xasprintf("/%s", VW_STATE_FILE);
	size_t len = 0;
	struct vw_err local = { 0 };
	int r;

	r = vw_sysroot_read(sr, VW_STATE_FILE, &text, &len, VW_ANSWERS_MAX, &local);
	if (r < 0) {
		vw_state_done(s);
		vw_state_init(s);
		free(name);
		if (r == -ENOENT)
			return r;
		if (err)
			*err = local;
		return r;
	}
	r = vw_state_parse(s, text, len, name, err);
	memset(text, 0, len);	/* may hold the VNC password */
	free(text);
	free(name);
	return r;
}

static void put_str(struct vw_buf *b, const char *key, const char *v)
{
	vw_buf_printf(b, "  %s = '", key);
	for (; *v; v++) {
		if (*v == '\'' || *v == '\\')
			vw_buf_addc(b, '\\');
		if (*v != '\n')
			vw_buf_addc(b, *v);
	}
	vw_buf_adds(b, "'\n");
}

void vw_state_format(struct vw_buf *b, const struct vw_state *s)
{
	vw_buf_adds(b, "# vfiowiz wizard state: your choices and how far the walk went.\n"
		       "# Written by the wizard; delete it to start over.\n");
	vw_answers_format(b, &s->choices);
	vw_buf_adds(b, "progress {\n");
	vw_buf_printf(b, "  version = %d\n", STATE_VERSION);
	put_str(b, "step", s->step);
	put_str(b, "boot_id", s->boot_id);
	vw_buf_printf(b, "  applied = %s\n", s->applied ? "true" : "false");
	put_str(b, "applied_boot_id", s->applied_boot_id);
	put_str(b, "journal", s->journal);
	vw_buf_adds(b, "}\n");
}

int vw_state_save(const struct vw_state *s, const struct vw_sysroot *sr, struct vw_err *err)
{
	struct vw_buf b = VW_BUF_INIT;
	int r, fd;

	vw_state_format(&b, s);
	r = vw_write_atomic(sr, VW_STATE_FILE, b.data, b.len, 0600, err);
	memset(b.data, 0, b.len);
	vw_buf_done(&b);
	if (r < 0)
		return r;
	/* The atomic write keeps an existing file's mode: make sure it is private. */
	fd = vw_sysroot_openat(sr, VW_STATE_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
	if (fd < 0)
		return vw_err_set(err, fd, _("cannot make /%s private: %s"), VW_STATE_FILE, strerror(-fd));
	if (fchmod(fd, 0600) < 0)
		r = vw_err_set(err, -errno, _("cannot make /%s private: %s"), VW_STATE_FILE, strerror(errno));
	close(fd);
	return r;
}

char *vw_boot_id(const struct vw_sysroot *sr)
{
	char *id = vw_sysroot_read_line(sr, "proc/sys/kernel/random/boot_id");

	return id ? id : vw_xstrdup("");
}

bool vw_state_rebooted(const struct vw_state *s, const char *boot_id)
{
	return s->applied && *s->applied_boot_id && boot_id && *boot_id &&
	       strcmp(s->applied_boot_id, boot_id) != 0;
}
