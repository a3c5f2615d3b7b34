/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A FUSE file system of one file, "code", whose reads never complete: the
 * stand-in for a hung NFS mount or a stuck FUSE daemon.  The server is a
 * process of its own speaking the kernel's FUSE protocol on /dev/fuse
 * (no libfuse in the VM): it answers INIT, LOOKUP, GETATTR, OPEN, FLUSH
 * and RELEASE, refuses what else is asked with ENOSYS, and keeps every
 * READ unanswered, saying so on a pipe so a test knows a read now hangs.
 */
#ifndef UWPROF_SELFTEST_FUSE_HANG_H
#define UWPROF_SELFTEST_FUSE_HANG_H

#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUSE_HANG_DIR		"/tmp/fuse-hang"
#define FUSE_HANG_FILE		FUSE_HANG_DIR "/code"
#define FUSE_HANG_SIZE		65536
#define FUSE_HANG_INO		2

struct fuse_hang {
	pid_t server;
	int reads;		/* a byte per READ received */
};

static void fuse_hang_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
	} else {
		a->mode = S_IFREG | 0755;
		a->size = FUSE_HANG_SIZE;
		a->blocks = FUSE_HANG_SIZE / 512;
	}
}

static void fuse_hang_reply(int dev, uint64_t unique, int error,
			    const void *arg, size_t len)
{
	struct {
		struct fuse_out_header h;
		char arg[256];
	} out;

	out.h.len = sizeof(out.h) + len;
	out.h.error = error;
	out.h.unique = unique;
	memcpy(out.arg, arg, len);
	if (write(dev, &out, out.h.len) < 0 && errno != ENOENT)
		_exit(3);	/* ENOENT: the request was interrupted */
}

/* One request: reply, or for READ only tell the test. */
static void fuse_hang_serve(int dev, int reads, const struct fuse_in_header *h,
			    const char *arg)
{
	union {
		struct fuse_init_out init;
		struct fuse_entry_out entry;
		struct fuse_attr_out attr;
		struct fuse_open_out open;
	} o;
	const struct fuse_init_in *ii = (const void *)arg;

	memset(&o, 0, sizeof(o));
	switch (h->opcode) {
	case FUSE_INIT:
		o.init.major = FUSE_KERNEL_VERSION;
		o.init.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ?
			       ii->minor : FUSE_KERNEL_MINOR_VERSION;
		o.init.max_readahead = ii->max_readahead;
		o.init.max_write = 4096;
		o.init.max_background = 16;
		o.init.congestion_threshold = 12;
		fuse_hang_reply(dev, h->unique, 0, &o.init, sizeof(o.init));
		break;
	case FUSE_LOOKUP:
		if (h->nodeid != FUSE_ROOT_ID || strcmp(arg, "code")) {
			fuse_hang_reply(dev, h->unique, -ENOENT, NULL, 0);
			break;
		}
		o.entry.nodeid = FUSE_HANG_INO;
		o.entry.entry_valid = 3600;
		o.entry.attr_valid = 3600;
		fuse_hang_attr(&o.entry.attr, FUSE_HANG_INO);
		fuse_hang_reply(dev, h->unique, 0, &o.entry, sizeof(o.entry));
		break;
	case FUSE_GETATTR:
		o.attr.attr_valid = 3600;
		fuse_hang_attr(&o.attr.attr, h->nodeid);
		fuse_hang_reply(dev, h->unique, 0, &o.attr, sizeof(o.attr));
		break;
	case FUSE_OPEN:
		o.open.fh = 1;
		fuse_hang_reply(dev, h->unique, 0, &o.open, sizeof(o.open));
		break;
	case FUSE_READ:
		if (write(reads, "r", 1) != 1)
			_exit(3);
		break;		/* never answered */
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
		fuse_hang_reply(dev, h->unique, 0, NULL, 0);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break;		/* no reply is expected */
	default:
		fuse_hang_reply(dev, h->unique, -ENOSYS, NULL, 0);
	}
}

static void fuse_hang_loop(int dev, int reads)
{
	/* at least FUSE_MIN_READ_BUFFER, as the kernel asks */
	static char buf[8192 + 4096];
	ssize_t n;

	for (;;) {
		n = read(dev, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(struct fuse_in_header))
			_exit(0);	/* unmounted (ENODEV) */
		fuse_hang_serve(dev, reads, (struct fuse_in_header *)buf,
				buf + sizeof(struct fuse_in_header));
	}
}

/*
 * Mount FUSE_HANG_DIR (loading fuse.ko from / if the kernel has it as a
 * module) and start its server.  0, or -1 with errno.
 */
static int fuse_hang_mount(struct fuse_hang *fh)
{
	char opts[128];
	int dev, p[2];

	/* a module on Debian's kernels (tests/host/attack_vm.sh adds it) */
	if (access("/dev/fuse", F_OK) &&
	    system("insmod /fuse.ko 2>/dev/null") < 0)
		return -1;
	dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	mkdir(FUSE_HANG_DIR, 0755);
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", dev);
	if (mount("uwprof-hang", FUSE_HANG_DIR, "fuse", MS_NOSUID | MS_NODEV,
		  opts) || pipe(p)) {
		close(dev);
		return -1;
	}
	fh->server = fork();
	if (!fh->server) {
		close(p[0]);
		fuse_hang_loop(dev, p[1]);
	}
	close(dev);
	close(p[1]);
	fh->reads = p[0];
	return fh->server < 0 ? -1 : 0;
}

/* Abort the connection (every hung read fails) and unmount. */
static void fuse_hang_unmount(struct fuse_hang *fh)
{
	kill(fh->server, SIGKILL);
	waitpid(fh->server, NULL, 0);
	umount2(FUSE_HANG_DIR, MNT_DETACH);
	close(fh->reads);
}

#endif
