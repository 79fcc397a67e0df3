/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stubcmd.c - a stand-in for the commands a plan runs on a live host
 * (update-initramfs, virsh, qm, qemu-img, systemctl...), for
 * tests/undo-host.sh, which runs vfiowiz as on a live host in a chroot of a
 * fixture host.  Linked statically: the chroot holds no C library.
 *
 * Every call appends its arguments (joined with spaces, the name without its
 * directory) to /.vwtest/log.  Where the test needs what the real tool does:
 *  - lsinitramfs, lsinitrd, lsinitcpio, booster ls: list the vfio modules
 *    and every file under /etc and /usr/local, as an image built from them;
 *  - qm set ID --KEY VALUE: append "KEY: VALUE" to
 *    /etc/pve/qemu-server/ID.conf, as qm does;
 *  - qemu-img create ... PATH SIZE: create PATH when it is missing;
 *  - nvidia-smi: print the fixture's recording of the same command
 *    (/.vfiowiz/cmd/KEY, core/exec.h) with its status; a query, not a
 *    change, so it is not logged.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int list_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_F)
		printf("%s\n", path);
	return 0;
}

static void append(const char *path, const char *text)
{
	FILE *f = fopen(path, "a");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The recording of argv in the fixture (core/exec.h's key), as the
 * command would answer; 127 when there is none. */
static int replay(int argc, char **argv)
{
	char key[1024], path[1200], buf[4096];
	size_t n = 0, got;
	int rc = 0;
	FILE *f;

	for (int i = 0; i < argc && n < sizeof(key) - 1; i++) {
		const char *a = strrchr(argv[0], '/') && i == 0 ? strrchr(argv[0], '/') + 1 : argv[i];

		if (i)
			key[n++] = '_';
		for (; *a && n < sizeof(key) - 1; a++)
			key[n++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *a) ? *a : '_';
	}
	key[n] = 0;
	snprintf(path, sizeof(path), "/.vfiowiz/cmd/%s", key);
	f = fopen(path, "r");
	if (!f)
		return 127;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, got, stdout);
	fclose(f);
	snprintf(path, sizeof(path), "/.vfiowiz/cmd/%s.rc", key);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &rc) != 1)
			rc = 1;
		fclose(f);
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	char line[4096];
	size_t n = (size_t)snprintf(line, sizeof(line), "%s", name);

	if (!strcmp(name, "nvidia-smi"))
		return replay(argc, argv);
	for (int i = 1; i < argc && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %s", argv[i]);
	if (n < sizeof(line) - 1)
		strcat(line, "\n");
	append("/.vwtest/log", line);
	if (!strncmp(name, "lsinit", 6) || (!strcmp(name, "booster") && argc > 1 && !strcmp(argv[1], "ls"))) {
		puts("usr/lib/modules/x/kernel/drivers/vfio/pci/vfio-pci.ko\n"
		     "usr/lib/modules/x/kernel/drivers/vfio/vfio.ko\n"
		     "usr/lib/modules/x/kernel/drivers/vfio/vfio_iommu_type1.ko\n"
		     "usr/lib/modules/x/kernel/drivers/vfio/vfio_virqfd.ko");
		nftw("/etc", list_one, 16, FTW_PHYS);
		nftw("/usr/local", list_one, 16, FTW_PHYS);
	} else if (!strcmp(name, "qm") && argc == 5 && !strcmp(argv[1], "set") &&
		   !strncmp(argv[3], "--", 2)) {
		char path[256], text[1024];

		snprintf(path, sizeof(path), "/etc/pve/qemu-server/%s.conf", argv[2]);
		snprintf(text, sizeof(text), "%s: %s\n", argv[3] + 2, argv[4]);
		append(path, text);
	} else if (!strcmp(name, "qemu-img") && argc > 3 && !strcmp(argv[1], "create")) {
		int fd = open(argv[argc - 2], O_WRONLY | O_CREAT | O_EXCL, 0600);

		if (fd >= 0) {
			if (write(fd, "QFI\xfb stub image\n", 16) < 0)
				return 1;
			close(fd);
		}
	}
	return 0;
}
