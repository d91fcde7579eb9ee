/*
 * The launcher: one long-lived process per executor that starts the executor's sandboxed runs. A run costs one
 * fork of this small process and one exec of the binary, where a start from the JVM costs its spawn (an exec of
 * jspawnhelper) and the helper's own exec; a run joins an empty network namespace kept for its uid instead of
 * making one (and the kernel tearing it down after); its output is copied to its log file here, capped, with no
 * thread of the JVM's per run; and when it ends, every process of its uid is killed here, with no scan of /proc.
 *
 *   punctual-sandbox --serve PID
 *
 * Started as root by the executor whose pid is PID (exec/Launcher), from a thread that lives as long as this
 * process: the kernel kills it when that thread ends (parent-death signal), and a parent other than PID ends it at
 * once. Each run it starts has it as parent, with the parent-death signal too: when the executor dies, the launcher
 * dies, and so do the runs. It trusts nothing but its input, a pipe only the executor holds.
 *
 * Requests on its input, one frame each: a 4-byte little-endian length, at most MAX_FRAME, then that many bytes,
 * a sequence of NUL-ended strings:
 *   start ID CWD LOG CAP ARGC ARG... ENVC ENV...   a run: ARG... the helper's own arguments (sandbox.h), its name
 *                                                  first, from -s to COMMAND and its arguments; -u is required, -s
 *                                                  and -k PID are implied (the PID this launcher's); ENV... the
 *                                                  binary's whole environment; its output (stdout and stderr) to
 *                                                  LOG, CAP bytes at most
 *   release ID        opens the run's gate (-g): the binary starts
 *   close ID          closes it: the run ends NOT_RELEASED, its binary never started
 *   signal ID SIG     TERM or KILL to the run's process group, while its first process lives
 * Replies on its output, one line each:
 *   started ID PID
 *   released ID 1     (0: the gate was gone, the run ended before)
 *   exit ID CODE LEFT WRITTEN TRUNCATED
 *                     the run's first process ended with CODE (128 + the signal, as a shell says it), then every
 *                     process of its uid was killed (LEFT 1: one outlived the kills), then its output ended:
 *                     WRITTEN bytes in its log, TRUNCATED 1 if it wrote more than CAP
 *   refused ID WHY    a request not understood, or a run that could not be started: nothing of it runs
 * A frame longer than MAX_FRAME cannot be skipped: the launcher says so on stderr and exits, and its runs die.
 *
 * ID is a decimal number of at most 18 digits, unique among the runs not yet reported; the executor numbers them.
 */
#define _GNU_SOURCE
#include "launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox.h"

/* The longest request: a run's arguments and environment, which the API caps far below this. */
#define MAX_FRAME (1 << 20)
/* At most this many runs at once: an executor's slots, with room for runs being reported. */
#define MAX_RUNS 1024
/* At most this many kept network namespaces, one per uid that ran here (the sandbox's uid pool). */
#define MAX_NETNS 65536
/* After its first process ended and its uid was killed, how long a run's output is waited for. */
#define DRAIN_MS 10000
/* How often the uid's killer signals every process of the uid, a millisecond apart, before it gives up. */
#define KILL_ROUNDS 500
/* How many killers are started for one run, should the run's own processes kill one (they share its uid). */
#define MAX_KILLERS 5

enum phase { RUNNING, KILLING, DRAINING };

struct run {
    int used;
    char id[20];
    pid_t pid;    /* the run's first process (its group); 0 once reaped */
    pid_t killer; /* the process killing its uid; 0 when none */
    uid_t uid;
    int out, log, gate; /* -1 once closed */
    long long cap, written, drain_until;
    int truncated, code, left, killers;
    enum phase phase;
};

static struct run runs[MAX_RUNS];

static struct {
    uid_t uid;
    int fd;
} netns[MAX_NETNS];
static int nnetns;
static int host_net = -1;

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* One reply line; an executor that stopped reading is gone: so is the launcher (its runs die with it). */
static void reply(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *format, ...) {
    char line[600];
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(line, sizeof line - 1, format, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    if (n > (int)sizeof line - 2) {
        n = (int)sizeof line - 2;
    }
    line[n++] = '\n';
    for (int off = 0; off < n;) {
        ssize_t w = write(STDOUT_FILENO, line + off, (size_t)(n - off));
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            _exit(0);
        }
        off += (int)w;
    }
}

/* A reply's free text: printable ASCII on one line, so that a WHY cannot forge another reply. */
static const char *printable(char *s) {
    for (char *c = s; *c; c++) {
        if (*c < 0x20 || *c > 0x7e) {
            *c = '?';
        }
    }
    return s;
}

static int valid_id(const char *id) {
    size_t n = strlen(id);
    if (n == 0 || n > 18) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (id[i] < '0' || id[i] > '9') {
            return 0;
        }
    }
    return 1;
}

/* A count of fields: decimal digits only, at most max; else -1. */
static long count(const char *s, long max) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || v > max ? -1 : v;
}

static struct run *find(const char *id) {
    for (int i = 0; i < MAX_RUNS; i++) {
        if (runs[i].used && strcmp(runs[i].id, id) == 0) {
            return &runs[i];
        }
    }
    return NULL;
}

static void close_fd(int *fd) {
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/*
 * The empty network namespace kept for uid, made on its first run here: only that uid's runs join it, one at a
 * time (a uid is one run's until every process of it is killed), so no two runs at once share one (their abstract
 * sockets, for one, would meet). -1 with errno if none can be made.
 */
static int netns_for(uid_t uid) {
    for (int i = 0; i < nnetns; i++) {
        if (netns[i].uid == uid) {
            return netns[i].fd;
        }
    }
    if (nnetns == MAX_NETNS) {
        errno = ENOSPC;
        return -1;
    }
    if (host_net < 0 && (host_net = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0) {
        return -1;
    }
    /* Into a new one and straight back: this process is single-threaded, and nothing else happens meanwhile. */
    if (unshare(CLONE_NEWNET) != 0) {
        return -1;
    }
    int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    int e = errno;
    if (setns(host_net, CLONE_NEWNET) != 0) {
        /* Stuck outside the host's network: nothing this process does needs it, but say it and stop. */
        perror("punctual-sandbox: launcher: back to the host's network");
        _exit(E_NET);
    }
    if (fd < 0) {
        errno = e;
        return -1;
    }
    netns[nnetns].uid = uid;
    netns[nnetns].fd = fd;
    nnetns++;
    return fd;
}

/* In the forked child of a start: its input, output and descriptors set, then the sandbox's steps. */
static _Noreturn void child(struct sandbox *s, const char *cwd, int gate, int out, int net, char **envp) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    int in = gate >= 0 ? gate : open("/dev/null", O_RDONLY);
    if (in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0) {
        _exit(E_EXEC);
    }
    /*
     * Nothing of the launcher's stays open in the run: not its requests, not another run's gate (whose end would
     * never come while a copy is open here), not another run's output. The network's descriptor goes to 3 until
     * it is joined.
     */
    int first = 3;
    if (net >= 0) {
        if (net != 3 && dup2(net, 3) < 0) {
            _exit(E_NET);
        }
        s->netns = 3;
        first = 4;
    }
    if (close_range((unsigned)first, ~0U, 0) != 0) {
        for (int fd = first; fd < 65536; fd++) {
            close(fd);
        }
    }
    if (chdir(cwd) != 0) {
        sandbox_fail(E_CHDIR, "%s", cwd);
    }
    sandbox_enter(s, envp);
}

/* start ID CWD LOG CAP ARGC ARG... ENVC ENV... (fields[0] is "start"). */
static void start(char **fields, int nfields) {
    const char *id = fields[1];
    if (!valid_id(id) || find(id) != NULL) {
        reply("refused %s not a new run's id", valid_id(id) ? id : "-");
        return;
    }
    if (nfields < 8) {
        reply("refused %s too few fields", id);
        return;
    }
    const char *cwd = fields[2], *log = fields[3];
    long long cap = count(fields[4], LONG_MAX);
    long argc = count(fields[5], nfields - 7);
    if (cap < 0 || argc < 2 || cwd[0] != '/' || log[0] != '/') {
        reply("refused %s bad CWD, LOG, CAP or ARGC", id);
        return;
    }
    char **argv = fields + 6;
    long envc = count(fields[6 + argc], nfields);
    if (envc != nfields - 7 - argc) {
        reply("refused %s bad ENVC", id);
        return;
    }
    struct sandbox s;
    char why[512];
    /* The helper's parser wants argv NULL-ended: the ENVC field after it is overwritten (read above). */
    argv[argc] = NULL;
    if (sandbox_parse((int)argc, argv, &s, why, sizeof why) != 0) {
        reply("refused %s %s", id, printable(why));
        return;
    }
    if (s.uid == 0) {
        reply("refused %s no -u: every run here has a uid of its own, which ends it", id);
        return;
    }
    /* The environment ends the frame: its NULL is the one frames() put after the last field. */
    char **envp = fields + 7 + argc;
    s.session = 1;
    s.parent = getpid();
    int net = -1;
    if (s.network && (net = netns_for(s.uid)) < 0) {
        reply("refused %s no network namespace for uid %u: %s", id, (unsigned)s.uid, strerror(errno));
        return;
    }
    struct run *r = NULL;
    for (int i = 0; i < MAX_RUNS && r == NULL; i++) {
        if (!runs[i].used) {
            r = &runs[i];
        }
    }
    if (r == NULL) {
        reply("refused %s already %d runs", id, MAX_RUNS);
        return;
    }
    int out[2] = {-1, -1}, gate[2] = {-1, -1};
    int logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (logfd < 0 || pipe2(out, O_CLOEXEC) != 0 || (s.gated && pipe2(gate, O_CLOEXEC) != 0)) {
        int e = errno;
        close_fd(&logfd);
        close_fd(&out[0]);
        close_fd(&out[1]);
        reply("refused %s log or pipe: %s", id, strerror(e));
        return;
    }
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    pid_t pid = fork();
    if (pid == 0) {
        child(&s, cwd, gate[0], out[1], net, envp);
    }
    int e = errno;
    close_fd(&out[1]);
    close_fd(&gate[0]);
    if (pid < 0) {
        close_fd(&logfd);
        close_fd(&out[0]);
        close_fd(&gate[1]);
        reply("refused %s fork: %s", id, strerror(e));
        return;
    }
    memset(r, 0, sizeof *r);
    r->used = 1;
    snprintf(r->id, sizeof r->id, "%s", id);
    r->pid = pid;
    r->uid = s.uid;
    r->out = out[0];
    r->log = logfd;
    r->gate = gate[1];
    r->cap = cap;
    r->phase = RUNNING;
    reply("started %s %d", id, (int)pid);
}

static void finish(struct run *r) {
    reply("exit %s %d %d %lld %d", r->id, r->code, r->left, r->written, r->truncated);
    close_fd(&r->out);
    close_fd(&r->log);
    close_fd(&r->gate);
    r->used = 0;
}

static void drain(struct run *r, int left) {
    r->left = left;
    r->phase = DRAINING;
    r->drain_until = now_ms() + DRAIN_MS;
    if (r->out < 0) {
        finish(r);
    }
}

/*
 * Kills every process of the run's uid, in a child that becomes that uid: kill(-1) reaches every process the
 * caller may signal, which for a plain uid is every process of it, whatever its session, group or environment. It
 * answers 0 whether it reached any or not, so the kernel's own count of the uid's processes says when none is
 * left: with RLIMIT_NPROC at 2, this child (one of the uid's) can fork only if it is the uid's only process. Zombies
 * count until reaped; this process, their subreaper, reaps them meanwhile. Exits 0 once none is left, 1 if some
 * outlived KILL_ROUNDS, 2 if it could not become the uid.
 */
static void start_killer(struct run *r) {
    r->phase = KILLING;
    r->killers++;
    pid_t pid = fork();
    if (pid == 0) {
        /* Nothing of the launcher's open while this process is the uid's (its processes may signal it). */
        close_range(0, ~0U, 0);
        if (setgroups(0, NULL) != 0 || setresgid(r->uid, r->uid, r->uid) != 0
                || setresuid(r->uid, r->uid, r->uid) != 0) {
            _exit(2);
        }
        struct rlimit two = {2, 2};
        if (setrlimit(RLIMIT_NPROC, &two) != 0) {
            _exit(2);
        }
        struct timespec ms = {0, 1000000};
        for (int i = 0; i < KILL_ROUNDS; i++) {
            kill(-1, SIGKILL);
            pid_t probe = fork();
            if (probe == 0) {
                _exit(0);
            }
            if (probe > 0) {
                waitpid(probe, NULL, 0);
                _exit(0);
            }
            if (errno != EAGAIN) {
                _exit(2);
            }
            nanosleep(&ms, NULL);
        }
        _exit(1);
    }
    if (pid < 0) {
        drain(r, 1);
        return;
    }
    r->killer = pid;
}

static void reap(void) {
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (int i = 0; i < MAX_RUNS; i++) {
            struct run *r = &runs[i];
            if (!r->used) {
                continue;
            }
            if (r->pid == pid) {
                r->pid = 0;
                r->code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                close_fd(&r->gate);
                start_killer(r);
                break;
            }
            if (r->killer == pid) {
                r->killer = 0;
                if (WIFEXITED(status) && WEXITSTATUS(status) <= 1) {
                    drain(r, WEXITSTATUS(status));
                } else if (r->killers < MAX_KILLERS) {
                    /* A process of the uid killed the killer (it may: they share the uid) before it died. */
                    start_killer(r);
                } else {
                    drain(r, 1);
                }
                break;
            }
        }
        /* Anything else is an orphan of some run, handed to this process (its subreaper): reaped, nothing more. */
    }
}

/* Copies what the run wrote to its log, up to its cap; past it, reads and drops, so the run never blocks. */
static void pump(struct run *r) {
    static char buf[65536];
    for (;;) {
        ssize_t n = read(r->out, buf, sizeof buf);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return; /* EAGAIN: all read for now */
        }
        if (n == 0) {
            close_fd(&r->out);
            if (r->phase == DRAINING) {
                finish(r);
            }
            return;
        }
        long long take = r->cap - r->written < n ? r->cap - r->written : n;
        for (long long off = 0; off < take;) {
            ssize_t w = write(r->log, buf + off, (size_t)(take - off));
            if (w <= 0) {
                if (w < 0 && errno == EINTR) {
                    continue;
                }
                /* The disk is full or gone: the rest is dropped, and the count says what the log holds. */
                take = off;
                break;
            }
            off += w;
            r->written += w;
        }
        if (n > take && !r->truncated && r->written >= r->cap) {
            r->truncated = 1;
            char note[80];
            int len = snprintf(note, sizeof note, "\n[punctual: output truncated at %lld bytes]\n", r->cap);
            if (write(r->log, note, (size_t)len) < 0) {
                /* Nothing more to do: the flag says it was truncated. */
            }
        }
    }
}

static void request(char **fields, int nfields) {
    const char *op = fields[0];
    const char *id = nfields > 1 ? fields[1] : "-";
    if (strcmp(op, "start") == 0 && nfields > 1) {
        start(fields, nfields);
        return;
    }
    struct run *r = valid_id(id) ? find(id) : NULL;
    if (strcmp(op, "release") == 0 && nfields == 2) {
        int sent = 0;
        if (r != NULL && r->gate >= 0) {
            sent = write(r->gate, "\n", 1) == 1;
            close_fd(&r->gate);
        }
        reply("released %s %d", valid_id(id) ? id : "-", sent);
    } else if (strcmp(op, "close") == 0 && nfields == 2) {
        if (r != NULL) {
            close_fd(&r->gate);
        }
    } else if (strcmp(op, "signal") == 0 && nfields == 3
            && (strcmp(fields[2], "TERM") == 0 || strcmp(fields[2], "KILL") == 0)) {
        /*
         * Its group, while its first process (a zombie at least) holds the group's id: no other can have it. Just
         * after the start the child may not have made its session yet: then the child alone.
         */
        int sig = strcmp(fields[2], "TERM") == 0 ? SIGTERM : SIGKILL;
        if (r != NULL && r->pid > 0 && kill(-r->pid, sig) != 0) {
            kill(r->pid, sig);
        }
    } else {
        char what[40];
        snprintf(what, sizeof what, "%s", op);
        reply("refused %s not a request: %s", valid_id(id) ? id : "-", printable(what));
    }
}

/* The frames in buf[0, *len): each whole one served, the rest moved to the front. */
static void frames(char *buf, size_t *len) {
    static char *fields[MAX_FRAME + 1];
    size_t at = 0;
    while (*len - at >= 4) {
        uint32_t n = (uint32_t)(unsigned char)buf[at] | (uint32_t)(unsigned char)buf[at + 1] << 8
                | (uint32_t)(unsigned char)buf[at + 2] << 16 | (uint32_t)(unsigned char)buf[at + 3] << 24;
        if (n > MAX_FRAME) {
            fprintf(stderr, "punctual-sandbox: launcher: a request of %u bytes: its input is not the executor's\n", n);
            _exit(E_USAGE);
        }
        if (*len - at - 4 < n) {
            break;
        }
        char *frame = buf + at + 4;
        at += 4 + n;
        if (n == 0 || frame[n - 1] != '\0') {
            reply("refused - not a request: not NUL-ended");
            continue;
        }
        int nfields = 0;
        for (char *f = frame; f < frame + n; f += strlen(f) + 1) {
            fields[nfields++] = f;
        }
        /* Room for the NULL that ends an environment (start). */
        fields[nfields] = NULL;
        request(fields, nfields);
    }
    memmove(buf, buf + at, *len - at);
    *len -= at;
}

int launcher_serve(const char *parent_arg) {
    char *end;
    long parent = strtol(parent_arg, &end, 10);
    if (*end != '\0' || parent < 2) {
        fprintf(stderr, "punctual-sandbox: --serve %s: invalid\n", parent_arg);
        return E_USAGE;
    }
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != (pid_t)parent) {
        fputs("punctual-sandbox: launcher: the executor is gone\n", stderr);
        return E_PARENT;
    }
    /* A run's processes whose parent dies come here, to be reaped: the killer's kill(-1) counts zombies. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    signal(SIGPIPE, SIG_IGN);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0) {
        perror("punctual-sandbox: launcher: signalfd");
        return E_USAGE;
    }
    for (int i = 0; i < MAX_RUNS; i++) {
        runs[i].out = runs[i].log = runs[i].gate = -1;
    }
    static char in[MAX_FRAME + 4 + 65536];
    size_t len = 0;
    static struct pollfd fds[MAX_RUNS + 2];
    static int which[MAX_RUNS + 2];
    for (;;) {
        int nfds = 0;
        fds[nfds++] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
        fds[nfds++] = (struct pollfd){.fd = sfd, .events = POLLIN};
        long long next = -1;
        for (int i = 0; i < MAX_RUNS; i++) {
            if (runs[i].used && runs[i].out >= 0) {
                which[nfds] = i;
                fds[nfds++] = (struct pollfd){.fd = runs[i].out, .events = POLLIN};
            }
            if (runs[i].used && runs[i].phase == DRAINING && (next < 0 || runs[i].drain_until < next)) {
                next = runs[i].drain_until;
            }
        }
        long long wait = next < 0 ? -1 : next - now_ms();
        if (poll(fds, (nfds_t)nfds, next < 0 ? -1 : wait < 0 ? 0 : (int)wait) < 0 && errno != EINTR) {
            perror("punctual-sandbox: launcher: poll");
            return E_USAGE;
        }
        for (int k = 2; k < nfds; k++) {
            if (fds[k].revents != 0 && runs[which[k]].used && runs[which[k]].out == fds[k].fd) {
                pump(&runs[which[k]]);
            }
        }
        if (fds[1].revents != 0) {
            struct signalfd_siginfo info;
            while (read(sfd, &info, sizeof info) > 0) {
            }
            reap();
        }
        long long t = now_ms();
        for (int i = 0; i < MAX_RUNS; i++) {
            if (runs[i].used && runs[i].phase == DRAINING && runs[i].drain_until <= t) {
                /* A process that outlived the kills (uninterruptible) holds its output open: not waited for. */
                finish(&runs[i]);
            }
        }
        if (fds[0].revents != 0) {
            ssize_t n = read(STDIN_FILENO, in + len, sizeof in - len);
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                /* The executor closed its end (or died): so does the launcher, and its runs with it. */
                return 0;
            }
            if (n > 0) {
                len += (size_t)n;
                frames(in, &len);
            }
        }
    }
}
