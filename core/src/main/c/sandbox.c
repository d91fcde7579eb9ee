/*
 * The steps that put one run into its sandbox, every one in this one process, then one exec of the run's binary:
 *
 *   [-s] [-k PID] [-n] [-g] [-r RES=SOFT:HARD]... [-u UID] [-d IMAGE -w DIR [-t TEMP]...] -- COMMAND [ARG...]
 *
 * Made in the run's working directory, with the run's environment, which they neither read nor change: by the
 * helper started per run (punctual-sandbox.c), or by the launcher's child per run (launcher.c). In this order, each
 * step asked for by its option:
 *   -k  the kernel kills this process (and so the binary it becomes) when the executor's thread that started it
 *       dies: set first, and set again after the change of user, which clears it; PID is the executor's, and a
 *       parent other than it (the executor died before the signal was set, and this process was handed to
 *       another) ends this one at once;
 *   -s  a session and process group of its own, so that the run's whole group can be signalled at once;
 *   -d  a filesystem of its own: in a new mount namespace, private so that nothing mounted here reaches the host's,
 *       IMAGE (an ext4 image the executor made of the run's diskMb) goes on a free loop device that detaches itself
 *       when its last user closes it (LO_FLAGS_AUTOCLEAR), mounted nosuid,nodev at DIR (-w); on it "work" (UID:UID,
 *       0700) is bound over DIR and "tmp0", "tmp1"... (root, 1777, as a /tmp is) over each TEMP (-t), so all the run
 *       can write is on that one filesystem; then it enters DIR. With the run's last process, the namespace ends:
 *       the kernel unmounts the filesystem and frees the loop device. Needs -u;
 *   -n  a network namespace with nothing in it (not even a loopback that is up): a new one, or the launcher's
 *       kept one for the run's uid, which no other uid's run joins;
 *   -r  an rlimit, hard and soft, set while still root (so hard may be anything); RES is nproc, data, nofile, fsize
 *       or cpu, SOFT and HARD are decimal;
 *   -u  the user UID and group UID, no supplementary groups, and no_new_privs: no setuid binary gives it more;
 *   -g  a gate: it waits for a line on its input, then takes /dev/null as its input and execs COMMAND; at the end
 *       of its input without a line it exits 125 (NOT_RELEASED), COMMAND never started. Everything a start costs
 *       is paid before the gate opens.
 * Last, it execs COMMAND, an absolute path (no PATH search: the environment is the job's).
 *
 * They replace the chain setsid, unshare, prlimit, setpriv and sh, each one more exec per run; run as root for -d,
 * -n and -u, and need nothing for the rest. They trust nothing but their arguments, which only the executor writes.
 * Exit codes (sandbox.h), each with a line on stderr naming what failed (the run's log).
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
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

/* How often a free loop device is asked for when another process takes each one first. */
#define LOOP_TRIES 64

_Noreturn void sandbox_fail(int code, const char *format, ...) {
    int e = errno;
    va_list ap;
    /* stderr is unbuffered: nothing of the launcher's is flushed twice by a child that ends here. */
    fputs("punctual-sandbox: ", stderr);
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
    fprintf(stderr, ": %s\n", e == 0 ? "invalid" : strerror(e));
    _exit(code);
}

/* Where sandbox_parse says why it refuses: the first fault found. */
struct parse {
    char *why;
    size_t size;
    int bad;
};

static void refuse(struct parse *p, const char *what, const char *arg) {
    if (!p->bad) {
        snprintf(p->why, p->size, "%s %s", what, arg);
        p->bad = 1;
    }
}

/*
 * A decimal number of at most max at the start of s, digits only (strtoull would take a sign, spaces or another
 * base), ended by the end of s or a ':'; else refused, naming what and the whole argument it is part of.
 */
static unsigned long long number(
        struct parse *p, const char *s, unsigned long long max, const char *what, const char *whole) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || errno != 0 || v > max || (*end != '\0' && *end != ':')) {
        refuse(p, what, whole);
        return 0;
    }
    return v;
}

/* A uid of 1 to 2^32 - 2 (-1 means "unchanged" to the kernel; 0 is root's). */
static uid_t id_arg(struct parse *p, const char *s) {
    unsigned long long v = number(p, s, 4294967294ULL, "uid", s);
    if (v == 0 || strchr(s, ':') != NULL) {
        refuse(p, "uid", s);
    }
    return (uid_t)v;
}

static const char *absolute(struct parse *p, const char *path) {
    if (path[0] != '/' || strlen(path) > PATH_MAX - 16) {
        refuse(p, "not an absolute path of a sane length:", path);
    }
    return path;
}

/* RES=SOFT:HARD, RES one of the five the executor sets, SOFT at most HARD. */
static struct limit limit_arg(struct parse *p, const char *s) {
    static const struct {
        const char *name;
        int resource;
    } names[] = {
        {"nproc", RLIMIT_NPROC}, {"data", RLIMIT_DATA}, {"nofile", RLIMIT_NOFILE},
        {"fsize", RLIMIT_FSIZE}, {"cpu", RLIMIT_CPU},
    };
    struct limit l = {.resource = -1};
    const char *eq = strchr(s, '=');
    if (eq == NULL) {
        refuse(p, "rlimit", s);
        return l;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strlen(names[i].name) == (size_t)(eq - s) && strncmp(s, names[i].name, (size_t)(eq - s)) == 0) {
            l.resource = names[i].resource;
        }
    }
    const char *colon = strchr(eq + 1, ':');
    if (l.resource < 0 || colon == NULL) {
        refuse(p, "rlimit", s);
        return l;
    }
    /* RLIM_INFINITY is all ones: a finite limit stays below it. */
    l.value.rlim_cur = (rlim_t)number(p, eq + 1, (unsigned long long)RLIM_INFINITY - 1, "rlimit", s);
    l.value.rlim_max = (rlim_t)number(p, colon + 1, (unsigned long long)RLIM_INFINITY - 1, "rlimit", s);
    if (strchr(colon + 1, ':') != NULL || l.value.rlim_cur > l.value.rlim_max) {
        refuse(p, "rlimit", s);
    }
    return l;
}

int sandbox_parse(int argc, char **argv, struct sandbox *s, char *why, size_t why_size) {
    struct parse p = {.why = why, .size = why_size, .bad = 0};
    memset(s, 0, sizeof *s);
    s->netns = -1;
    int opt;
    /* 0 starts getopt afresh (the launcher parses many argument lists); its own messages off: ours say more. */
    optind = 0;
    opterr = 0;
    /* "+": options end at the first operand, as they must before COMMAND's own. */
    while (!p.bad && (opt = getopt(argc, argv, "+sk:ngr:u:d:w:t:")) != -1) {
        switch (opt) {
        case 's': s->session = 1; break;
        case 'k':
            s->parent = (pid_t)number(&p, optarg, 4194304, "pid", optarg);
            if (s->parent < 1 || strchr(optarg, ':') != NULL) {
                refuse(&p, "pid", optarg);
            }
            break;
        case 'n': s->network = 1; break;
        case 'g': s->gated = 1; break;
        case 'r':
            if (s->nlimits == MAX_LIMITS) {
                refuse(&p, "too many rlimits:", optarg);
                break;
            }
            s->limits[s->nlimits++] = limit_arg(&p, optarg);
            break;
        case 'u': s->uid = id_arg(&p, optarg); break;
        case 'd': s->image = absolute(&p, optarg); break;
        case 'w': s->dir = absolute(&p, optarg); break;
        case 't':
            if (s->ntemps == MAX_TEMPS) {
                refuse(&p, "too many temp directories:", optarg);
                break;
            }
            s->temps[s->ntemps++] = absolute(&p, optarg);
            break;
        default:
            refuse(&p, "usage:", "[-s] [-k PID] [-n] [-g] [-r RES=SOFT:HARD]... [-u UID] "
                                 "[-d IMAGE -w DIR [-t TEMP]...] -- COMMAND [ARG...]");
        }
    }
    if (p.bad) {
        return E_USAGE;
    }
    /* getopt consumed the "--" before COMMAND; it must have been there (an operand without it is refused). */
    if (optind >= argc || optind < 1 || strcmp(argv[optind - 1], "--") != 0) {
        refuse(&p, "no -- before COMMAND:", optind < argc ? argv[optind] : "(none)");
        return E_USAGE;
    }
    s->command = argv + optind;
    absolute(&p, s->command[0]);
    if ((s->image != NULL) != (s->dir != NULL) || (s->image != NULL && s->uid == 0)
            || (s->ntemps > 0 && s->image == NULL)) {
        refuse(&p, "-d needs -w and -u, and -t needs -d:",
               s->image != NULL ? s->image : s->dir != NULL ? s->dir : s->temps[0]);
    }
    return p.bad ? E_USAGE : 0;
}

/* dir/name into out, which holds PATH_MAX bytes (absolute() left room for any name used here). */
static void join(char *out, const char *dir, const char *name) {
    int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);
    if (n < 0 || n >= PATH_MAX) {
        errno = ENAMETOOLONG;
        sandbox_fail(E_DIRS, "%s/%s", dir, name);
    }
}

/*
 * A loop device backed by image_fd that detaches itself at its last close. Returns its open descriptor: the device
 * stays attached while it is open, so it is closed only once the filesystem is mounted (or the process dies).
 */
static int attach(int image_fd, const char *image, char *dev, size_t dev_size) {
    int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
    if (ctl < 0) {
        sandbox_fail(E_LOOP, "/dev/loop-control");
    }
    for (int i = 0; i < LOOP_TRIES; i++) {
        int n = ioctl(ctl, LOOP_CTL_GET_FREE);
        if (n < 0) {
            sandbox_fail(E_LOOP, "LOOP_CTL_GET_FREE");
        }
        snprintf(dev, dev_size, "/dev/loop%d", n);
        int fd = open(dev, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            sandbox_fail(E_LOOP, "%s", dev);
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
            sandbox_fail(E_LOOP, "LOOP_CONFIGURE %s", dev);
        }
        /* Another run's helper (or anyone) took that device between GET_FREE and CONFIGURE: ask again. */
    }
    errno = EBUSY;
    sandbox_fail(E_LOOP, "no free loop device after %d tries", LOOP_TRIES);
}

/* Makes dir/name (or leaves it, if there) with exactly mode, owned by uid:gid; mkdir's mode is cut by the umask. */
static void make_dir(const char *dir, const char *name, uid_t uid, gid_t gid, mode_t mode, char *path) {
    join(path, dir, name);
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        sandbox_fail(E_DIRS, "mkdir %s", path);
    }
    if (chown(path, uid, gid) != 0 || chmod(path, mode) != 0) {
        sandbox_fail(E_DIRS, "chown/chmod %s", path);
    }
}

/* The run's filesystem (-d), its temp directories bound to it and DIR entered: see the top of this file. */
static void own_disk(const char *image, const char *dir, const char *const *temps, int ntemps, uid_t uid) {
    for (int i = 0; i < ntemps; i++) {
        /* A DIR under a TEMP would be hidden by the fresh one bound over it (and so would the run's binary). */
        size_t n = strlen(temps[i]);
        if (strncmp(dir, temps[i], n) == 0 && (dir[n] == '/' || dir[n] == '\0' || n == 1)) {
            errno = 0;
            sandbox_fail(E_USAGE, "%s is under %s", dir, temps[i]);
        }
    }
    if (unshare(CLONE_NEWNS) != 0) {
        sandbox_fail(E_UNSHARE, "unshare(CLONE_NEWNS)");
    }
    /* Where the host's / is shared (systemd), mounts made in a copy of it would appear on the host too. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        sandbox_fail(E_PRIVATE, "making / private");
    }
    int image_fd = open(image, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (image_fd < 0) {
        sandbox_fail(E_IMAGE, "%s", image);
    }
    char dev[32];
    int loop_fd = attach(image_fd, image, dev, sizeof dev);
    close(image_fd);
    /*
     * noinit_itable: the image was made with its inode tables left unwritten, and the kernel would otherwise zero
     * them in the background, writing to the image what no run asked for.
     */
    if (mount(dev, dir, "ext4", MS_NOSUID | MS_NODEV | MS_NOATIME, "noinit_itable") != 0) {
        sandbox_fail(E_MOUNT, "mounting %s (%s) at %s", dev, image, dir);
    }
    /* The mount holds the device now; at its unmount the device detaches itself (AUTOCLEAR). */
    close(loop_fd);

    char path[PATH_MAX];
    char name[16];
    for (int i = 0; i < ntemps; i++) {
        snprintf(name, sizeof name, "tmp%d", i);
        make_dir(dir, name, 0, 0, 01777, path);
        /* A bind mount keeps the flags of the mount it comes from: nosuid, nodev. */
        if (mount(path, temps[i], NULL, MS_BIND, NULL) != 0) {
            sandbox_fail(E_BIND, "binding %s to %s", path, temps[i]);
        }
    }
    make_dir(dir, "work", uid, uid, 0700, path);
    /* Last: over DIR itself, which hides the filesystem's root (and its lost+found) from the run. */
    if (mount(path, dir, NULL, MS_BIND, NULL) != 0) {
        sandbox_fail(E_BIND, "binding %s to %s", path, dir);
    }
    /* The working directory this process was started in is the one under the mounts: enter the new one. */
    if (chdir(dir) != 0) {
        sandbox_fail(E_CHDIR, "%s", dir);
    }
}

/*
 * The parent-death signal, and a check that the parent it names is still the one this process started under: a
 * parent gone before the signal was set would never send it (this process, reparented, would run on unwatched).
 */
static void watch_parent(pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
        sandbox_fail(E_PARENT, "PR_SET_PDEATHSIG");
    }
    if (getppid() != parent) {
        errno = ESRCH;
        sandbox_fail(E_PARENT, "the process that started it is gone");
    }
}

/* Waits for a line on the input (-g); at its end exits NOT_RELEASED. Then the input is /dev/null. */
static void gate(void) {
    char c;
    for (;;) {
        ssize_t n = read(STDIN_FILENO, &c, 1);
        if (n == 1 && c == '\n') {
            break;
        }
        if (n == 0 || (n < 0 && errno != EINTR)) {
            _exit(NOT_RELEASED);
        }
    }
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, STDIN_FILENO) < 0) {
        sandbox_fail(E_EXEC, "/dev/null as input");
    }
    if (null != STDIN_FILENO) {
        close(null);
    }
}

_Noreturn void sandbox_enter(const struct sandbox *s, char **envp) {
    pid_t parent = s->parent;
    if (s->image != NULL && parent == 0) {
        /* It may hold root and a loop device for a while: it must not outlive whoever started it. */
        parent = getppid();
    }
    /*
     * First: if the executor dies from here on, so does this process. Kept across every step up to the change of
     * user, which clears it (set again there).
     */
    if (parent != 0) {
        watch_parent(parent);
    }
    if (s->session && setsid() < 0) {
        sandbox_fail(E_SESSION, "setsid");
    }
    if (s->image != NULL) {
        own_disk(s->image, s->dir, s->temps, s->ntemps, s->uid);
    }
    if (s->network) {
        if (s->netns >= 0 ? setns(s->netns, CLONE_NEWNET) != 0 : unshare(CLONE_NEWNET) != 0) {
            sandbox_fail(E_NET, s->netns >= 0 ? "setns(CLONE_NEWNET)" : "unshare(CLONE_NEWNET)");
        }
        if (s->netns >= 0) {
            close(s->netns);
        }
    }
    /* While still root: hard limits may be set to anything, and the change of user keeps them. */
    for (int i = 0; i < s->nlimits; i++) {
        if (setrlimit(s->limits[i].resource, &s->limits[i].value) != 0) {
            sandbox_fail(E_LIMIT, "setrlimit %d", s->limits[i].resource);
        }
    }
    if (s->uid != 0) {
        /* Groups first: once the uid is not root, they cannot be changed. */
        if (setgroups(0, NULL) != 0 || setresgid(s->uid, s->uid, s->uid) != 0
                || setresuid(s->uid, s->uid, s->uid) != 0) {
            sandbox_fail(E_USER, "becoming %u:%u", (unsigned)s->uid, (unsigned)s->uid);
        }
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
            sandbox_fail(E_USER, "PR_SET_NO_NEW_PRIVS");
        }
    }
    if (parent != 0) {
        /* The change of user cleared it. */
        watch_parent(parent);
    }
    if (s->gated) {
        gate();
    }
    execve(s->command[0], s->command, envp);
    sandbox_fail(E_EXEC, "%s", s->command[0]);
}
