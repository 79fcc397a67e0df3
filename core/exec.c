/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exec.c - running (or replaying) external commands. */
#define _GNU_SOURCE
#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define CMD_DIR ".vfiowiz/cmd/"

static void result_init(struct vw_exec_result *res)
{
	memset(res, 0, sizeof(*res));
	res->status = -1;
	res->output = vw_xstrdup("");
}

void vw_exec_result_done(struct vw_exec_result *res)
{
	free(res->output);
	memset(res, 0, sizeof(*res));
	res->status = -1;
}

static bool key_byte_ok(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

char *vw_exec_key(const char *const argv[])
{
	struct vw_buf b = VW_BUF_INIT;

	for (size_t i = 0; argv && argv[i]; i++) {
		if (i)
			vw_buf_addc(&b, ' ');
		vw_buf_adds(&b, argv[i]);
	}
	for (size_t i = 0; i < b.len; i++)
		if (!key_byte_ok((unsigned char)b.data[i]))
			b.data[i] = '_';
	return vw_buf_steal(&b);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* One word starting at *s (not blank); advances *s past it. */
static int split_word(const char **s, struct vw_buf *w)
{
	const char *p = *s;
	char q = 0;

	for (; *p && (q || !is_blank(*p)); p++) {
		if (q == '\'') {
			if (*p == '\'')
				q = 0;
			else
				vw_buf_addc(w, *p);
		} else if (q == '"') {
			if (*p == '"')
				q = 0;
			else if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
				vw_buf_addc(w, *++p);
			else
				vw_buf_addc(w, *p);
		} else if (*p == '\'' || *p == '"') {
			q = *p;
		} else if (*p == '\\' && p[1]) {
			vw_buf_addc(w, *++p);
		} else {
			vw_buf_addc(w, *p);
		}
	}
	*s = p;
	return q ? -EINVAL : 0;
}

int vw_exec_split(const char *line, char ***argv, struct vw_err *err)
{
	char **v = NULL;
	size_t n = 0;
	const char *s = line ? line : "";

	*argv = NULL;
	for (;;) {
		struct vw_buf w = VW_BUF_INIT;

		while (is_blank(*s))
			s++;
		if (!*s)
			break;
		vw_buf_adds(&w, "");
		if (split_word(&s, &w) < 0) {
			vw_buf_done(&w);
			vw_strv_free(v);
			return vw_err_set(err, -EINVAL, _("unbalanced quote in command: %s"), line);
		}
		v = vw_xreallocarray(v, n + 2, sizeof(char *));
		v[n++] = vw_buf_steal(&w);
		v[n] = NULL;
	}
	if (!n)
		return vw_err_set(err, -EINVAL, _("empty command"));
	*argv = v;
	return (int)n;
}

char *vw_exec_join(const char *const argv[])
{
	struct vw_buf b = VW_BUF_INIT;

	vw_buf_adds(&b, "");
	for (size_t i = 0; argv && argv[i]; i++) {
		const char *a = argv[i];
		bool plain = *a != '\0';

		for (const char *p = a; *p && plain; p++)
			plain = key_byte_ok((unsigned char)*p) || strchr("/=:,+@%", *p);
		if (i)
			vw_buf_addc(&b, ' ');
		if (plain) {
			vw_buf_adds(&b, a);
			continue;
		}
		vw_buf_addc(&b, '\'');
		for (const char *p = a; *p; p++)
			vw_buf_adds(&b, *p == '\'' ? "'\\''" : (char[]){ *p, 0 });
		vw_buf_addc(&b, '\'');
	}
	return vw_buf_steal(&b);
}

/* Keep at most max bytes of what arrives; count the rest as truncation. */
static void keep(struct vw_exec_result *res, struct vw_buf *b, const char *p, size_t n,
		 size_t max)
{
	size_t room = b->len < max ? max - b->len : 0;

	if (n > room) {
		res->truncated = true;
		n = room;
	}
	vw_buf_add(b, p, n);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read the pipe until EOF or the deadline.  Returns 0 or -ETIMEDOUT. */
static int drain(int fd, struct vw_exec_result *res, struct vw_buf *b,
		 const struct vw_exec_opts *o, long long deadline)
{
	char chunk[8192];

	for (;;) {
		long long left = deadline - now_ms();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		keep(res, b, chunk, (size_t)n, o->max_output);
	}
}

/* Wait for the exit until the deadline (a command may close its output and
 * go on running).  Returns 0, or -ETIMEDOUT with the process still there. */
static int wait_exit(pid_t pid, long long deadline)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0), r = 0;

	if (pfd < 0)
		return 0;	/* kernels before 5.3: reap() blocks */
	for (;;) {
		long long left = deadline - now_ms();
		struct pollfd p = { .fd = pfd, .events = POLLIN };

		if (left <= 0) {
			r = -ETIMEDOUT;
			break;
		}
		int n = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (n > 0 || (n < 0 && errno != EINTR))
			break;
	}
	close(pfd);
	return r;
}

static int reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

static int spawn(const char *const argv[], int out, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	int r;

	sigemptyset(&none);
	sigemptyset(&dfl);
	/* A parent that ignores SIGPIPE or SIGINT must not pass that on. */
	for (int s = 1; s < 32; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaddset(&dfl, s);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, out, 2);
	posix_spawnattr_init(&at);
	/* Own process group: a timeout kills the command and its children. */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	r = posix_spawnp(pid, argv[0], &fa, &at, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return -r;
}

static int run_host(const char *const argv[], const struct vw_exec_opts *o,
		    struct vw_exec_result *res, struct vw_err *err)
{
	struct vw_buf b = VW_BUF_INIT;
	long long deadline;
	int fds[2], r;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return vw_err_set(err, -errno, _("cannot run %s: %s"), argv[0], strerror(errno));
	r = spawn(argv, fds[1], &pid);
	close(fds[1]);
	if (r < 0) {
		close(fds[0]);
		return vw_err_set(err, r, _("cannot run %s: %s"), argv[0], strerror(-r));
	}
	res->source = VW_EXEC_RAN;
	deadline = now_ms() + o->timeout_ms;
	r = drain(fds[0], res, &b, o, deadline);
	if (r == 0)
		r = wait_exit(pid, deadline);
	if (r == -ETIMEDOUT) {
		kill(-pid, SIGKILL);
		res->timed_out = true;
	}
	close(fds[0]);
	res->status = reap(pid);
	free(res->output);
	vw_buf_adds(&b, "");
	res->len = b.len;
	res->output = vw_buf_steal(&b);
	if (r == -ETIMEDOUT)
		return vw_err_set(err, r, _("%s did not finish within %u seconds"), argv[0],
				  o->timeout_ms / 1000);
	if (r < 0)
		return vw_err_set(err, r, _("cannot read the output of %s: %s"), argv[0],
				  strerror(-r));
	return 0;
}

/* Read a recording: at most max bytes kept, the rest counted as truncated. */
static int read_recording(const struct vw_sysroot *sr, const char *rel,
			  const struct vw_exec_opts *o, struct vw_exec_result *res)
{
	struct vw_buf b = VW_BUF_INIT;
	char chunk[8192];
	ssize_t n;
	int fd = vw_sysroot_openat(sr, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0);

	if (fd < 0)
		return fd;
	vw_buf_adds(&b, "");
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = -errno;
			close(fd);
			vw_buf_done(&b);
			return e;
		}
		keep(res, &b, chunk, (size_t)n, o->max_output);
	}
	close(fd);
	free(res->output);
	res->len = b.len;
	res->output = vw_buf_steal(&b);
	return 0;
}

static int replay(const struct vw_sysroot *sr, const char *const argv[],
		  const struct vw_exec_opts *o, struct vw_exec_result *res, struct vw_err *err)
{
	char *key = vw_exec_key(argv), *rel, *rc;
	long status = 0;
	int r;

	if (!key[0] || !strcmp(key, ".") || !strcmp(key, "..") || strlen(key) > 250) {
		r = vw_err_set(err, -EINVAL, _("%s: no recording possible for this command"),
			       argv[0]);
		free(key);
		return r;
	}
	rel = vw_xasprintf(CMD_DIR "%s", key);
	rc = vw_xasprintf(CMD_DIR "%s.rc", key);
	r = read_recording(sr, rel, o, res);
	if (r == -ENOENT)
		r = vw_err_set(err, r, _("%s: not recorded in this snapshot (%s)"), argv[0], rel);
	else if (r < 0)
		r = vw_err_set(err, r, _("cannot read /%s: %s"), rel, strerror(-r));
	if (r == 0) {
		r = vw_sysroot_read_long(sr, rc, &status);
		if (r == -ENOENT)
			status = 0, r = 0;
		if (r < 0 || status < 0 || status > 255)
			r = vw_err_set(err, -EINVAL, _("/%s does not hold an exit status"), rc);
	}
	if (r == 0) {
		res->source = VW_EXEC_RECORDED;
		res->status = (int)status;
	}
	free(key);
	free(rel);
	free(rc);
	return r;
}

int vw_exec_run_opts(const struct vw_sysroot *sr, const char *const argv[],
		     const struct vw_exec_opts *opts, struct vw_exec_result *res,
		     struct vw_err *err)
{
	struct vw_exec_opts o = opts ? *opts : (struct vw_exec_opts){ 0 };

	result_init(res);
	if (!argv || !argv[0] || !argv[0][0])
		return vw_err_set(err, -EINVAL, _("empty command"));
	if (!o.timeout_ms)
		o.timeout_ms = VW_EXEC_TIMEOUT_MS;
	if (!o.max_output)
		o.max_output = VW_EXEC_MAX_OUTPUT;
	if (o.dry) {
		res->source = VW_EXEC_LISTED;
		return 0;
	}
	/* Nothing from a snapshot is ever executed: only the host runs. */
	if (vw_sysroot_is_host(sr))
		return run_host(argv, &o, res, err);
	return replay(sr, argv, &o, res, err);
}

int vw_exec_run(const struct vw_sysroot *sr, const char *const argv[],
		struct vw_exec_result *res, struct vw_err *err)
{
	return vw_exec_run_opts(sr, argv, NULL, res, err);
}
