/*
 * punctual-sandbox: gives one run a filesystem of its own, then execs the rest of the run's start chain.
 *
 *   punctual-sandbox IMAGE DIR UID GID [TEMP...] -- COMMAND [ARG...]
 *
 * Run as root by the executor (exec/ProcessRunner), between setsid and the steps that drop root. In a new mount
 * namespace, private so that nothing mounted here reaches the host's: IMAGE, an ext4 image the executor made of the
 * run's diskMb, goes on a free loop device that detaches itself when its last user closes it (LO_FLAGS_AUTOCLEAR),
 * and is mounted nosuid,nodev at DIR. On it, "work" (UID:GID, 0700) is bound over DIR and "tmp0", "tmp1"... (root,
 * 1777, as a /tmp is) over each TEMP, so that all the run can write there is on that one filesystem. Then it changes
 * to DIR and execs COMMAND, an absolute path (no PATH search: the environment is the job's). When the run's last
 * process ends, so does the namespace: the filesystem is unmounted and the loop device freed by the kernel.
 *
 * It reads no environment variable and trusts nothing but its arguments, which only the executor writes.
 * Exit codes, each with a line on stderr naming what failed (the run's log):
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    E_USAGE = 110,   /* bad arguments */
    E_UNSHARE = 111, /* no mount namespace of its own (needs CAP_SYS_ADMIN) */
    E_PRIVATE = 112, /* the namespace's mounts could not be made private */
    E_IMAGE = 113,   /* IMAGE cannot be opened */
    E_LOOP = 114,    /* no loop device could be set up for it */
    E_MOUNT = 115,   /* the loop device cannot be mounted as ext4 at DIR */
    E_DIRS = 116,    /* the directories on it cannot be made */
    E_BIND = 117,    /* a bind mount failed */
    E_CHDIR = 118,   /* DIR cannot be entered */
    E_EXEC = 119,    /* COMMAND cannot be executed */
};

/* At most this many TEMP directories (/tmp, /var/tmp, /dev/shm, /run/lock: four today). */
#define MAX_TEMPS 8
/* How often a free loop device is asked for when another process takes each one first. */
#define LOOP_TRIES 64

static _Noreturn void fail(int code, const char *format, ...) {
    int e = errno;
    va_list ap;
    fputs("punctual-sandbox: ", stderr);
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
    fprintf(stderr, ": %s\n", e == 0 ? "invalid" : strerror(e));
    exit(code);
}

/* A uid or gid of 1 to 2^32 - 2 (-1 means "unchanged" to the kernel; 0 is root's). */
static unsigned long id_arg(const char *s, const char *what) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || errno != 0 || *end != '\0' || v == 0 || v >= 4294967295UL) {
        errno = 0;
        fail(E_USAGE, "%s %s", what, s);
    }
    return v;
}

static void absolute(const char *path) {
    if (path[0] != '/' || strlen(path) > PATH_MAX - 16) {
        errno = 0;
        fail(E_USAGE, "not an absolute path of a sane length: %s", path);
    }
}

/* dir/name into out, which holds PATH_MAX bytes (absolute() left room for any name used here). */
static void join(char *out, const char *dir, const char *name) {
    int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);
    if (n < 0 || n >= PATH_MAX) {
        errno = ENAMETOOLONG;
        fail(E_DIRS, "%s/%s", dir, name);
    }
}

/*
 * A loop device backed by image_fd that detaches itself at its last close. Returns its open descriptor: the device
 * stays attached while it is open, so it is closed only once the filesystem is mounted (or the process dies).
 */
static int attach(int image_fd, const char *image, char *dev, size_t dev_size) {
    int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
    if (ctl < 0) {
        fail(E_LOOP, "/dev/loop-control");
    }
    for (int i = 0; i < LOOP_TRIES; i++) {
        int n = ioctl(ctl, LOOP_CTL_GET_FREE);
        if (n < 0) {
            fail(E_LOOP, "LOOP_CTL_GET_FREE");
        }
        snprintf(dev, dev_size, "/dev/loop%d", n);
        int fd = open(dev, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            fail(E_LOOP, "%s", dev);
        }
        struct loop_config config;
        memset(&config, 0, sizeof config);
        config.fd = (__u32)image_fd;
        config.info.lo_flags = LO_FLAGS_AUTOCLEAR;
        /* Shown by losetup: which run's image it is. Cut short if long; memset left it NUL-terminated. */
        strncpy((char *)config.info.lo_file_name, image, LO_NAME_SIZE - 1);
        if (ioctl(fd, LOOP_CONFIGURE, &config) == 0) {
            close(ctl);
            return fd;
        }
        int e = errno;
        close(fd);
        if (e != EBUSY) {
            errno = e;
            fail(E_LOOP, "LOOP_CONFIGURE %s", dev);
        }
        /* Another run's helper (or anyone) took that device between GET_FREE and CONFIGURE: ask again. */
    }
    errno = EBUSY;
    fail(E_LOOP, "no free loop device after %d tries", LOOP_TRIES);
}

/* Makes dir/name (or leaves it, if there) with exactly mode, owned by uid:gid; mkdir's mode is cut by the umask. */
static void make_dir(const char *dir, const char *name, uid_t uid, gid_t gid, mode_t mode, char *path) {
    join(path, dir, name);
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        fail(E_DIRS, "mkdir %s", path);
    }
    if (chown(path, uid, gid) != 0 || chmod(path, mode) != 0) {
        fail(E_DIRS, "chown/chmod %s", path);
    }
}

int main(int argc, char **argv) {
    /* IMAGE DIR UID GID, then TEMPs up to "--", then COMMAND. */
    int dashes = 5;
    while (dashes < argc && strcmp(argv[dashes], "--") != 0) {
        dashes++;
    }
    if (argc < 5 || dashes >= argc - 1 || dashes - 5 > MAX_TEMPS) {
        fputs("usage: punctual-sandbox IMAGE DIR UID GID [TEMP...] -- COMMAND [ARG...]\n", stderr);
        return E_USAGE;
    }
    const char *image = argv[1];
    const char *dir = argv[2];
    uid_t uid = (uid_t)id_arg(argv[3], "uid");
    gid_t gid = (gid_t)id_arg(argv[4], "gid");
    char **command = argv + dashes + 1;
    for (int i = 1; i <= 2; i++) {
        absolute(argv[i]);
    }
    for (int i = 5; i < dashes; i++) {
        absolute(argv[i]);
    }
    absolute(command[0]);
    for (int i = 5; i < dashes; i++) {
        /* A DIR under a TEMP would be hidden by the fresh one bound over it (and so would the run's binary). */
        size_t n = strlen(argv[i]);
        if (strncmp(dir, argv[i], n) == 0 && (dir[n] == '/' || dir[n] == '\0' || n == 1)) {
            errno = 0;
            fail(E_USAGE, "%s is under %s", dir, argv[i]);
        }
    }

    /*
     * If the executor dies before the chain's setpriv sets its own parent-death signal, this process (root, holding
     * a loop device) must not go on. Kept across the execs up to setpriv, which change no credentials.
     */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
        fail(E_UNSHARE, "PR_SET_PDEATHSIG");
    }
    if (unshare(CLONE_NEWNS) != 0) {
        fail(E_UNSHARE, "unshare(CLONE_NEWNS)");
    }
    /* Where the host's / is shared (systemd), mounts made in a copy of it would appear on the host too. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        fail(E_PRIVATE, "making / private");
    }

    int image_fd = open(image, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (image_fd < 0) {
        fail(E_IMAGE, "%s", image);
    }
    char dev[32];
    int loop_fd = attach(image_fd, image, dev, sizeof dev);
    close(image_fd);
    /*
     * noinit_itable: the image was made with its inode tables left unwritten, and the kernel would otherwise zero
     * them in the background, writing to the image what no run asked for.
     */
    if (mount(dev, dir, "ext4", MS_NOSUID | MS_NODEV | MS_NOATIME, "noinit_itable") != 0) {
        fail(E_MOUNT, "mounting %s (%s) at %s", dev, image, dir);
    }
    /* The mount holds the device now; at its unmount the device detaches itself (AUTOCLEAR). */
    close(loop_fd);

    char path[PATH_MAX];
    char name[16];
    for (int i = 5; i < dashes; i++) {
        snprintf(name, sizeof name, "tmp%d", i - 5);
        make_dir(dir, name, 0, 0, 01777, path);
        /* A bind mount keeps the flags of the mount it comes from: nosuid, nodev. */
        if (mount(path, argv[i], NULL, MS_BIND, NULL) != 0) {
            fail(E_BIND, "binding %s to %s", path, argv[i]);
        }
    }
    make_dir(dir, "work", uid, gid, 0700, path);
    /* Last: over DIR itself, which hides the filesystem's root (and its lost+found) from the run. */
    if (mount(path, dir, NULL, MS_BIND, NULL) != 0) {
        fail(E_BIND, "binding %s to %s", path, dir);
    }
    /* The working directory this process was started in is the one under the mounts: enter the new one. */
    if (chdir(dir) != 0) {
        fail(E_CHDIR, "%s", dir);
    }
    execv(command[0], command);
    fail(E_EXEC, "%s", command[0]);
}
