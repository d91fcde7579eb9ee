/*
 * The steps that put one run into its sandbox (sandbox.c), shared by the helper's two ways of being used
 * (punctual-sandbox.c): started per run, it makes them and then execs the binary; as the launcher (launcher.c), its
 * child per run makes them. What each step does and why: the top of sandbox.c.
 */
#ifndef PUNCTUAL_SANDBOX_H
#define PUNCTUAL_SANDBOX_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

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
    E_SESSION = 120, /* no session of its own (already a group leader) */
    E_NET = 121,     /* no network namespace of its own (needs CAP_SYS_ADMIN) */
    E_LIMIT = 122,   /* an rlimit cannot be set */
    E_USER = 123,    /* the user cannot be changed (needs root), or no_new_privs cannot be set */
    E_PARENT = 124,  /* the process that started it is gone, or the parent-death signal cannot be set */
    NOT_RELEASED = 125,
};

/* At most this many TEMP directories (/tmp, /var/tmp, /dev/shm, /run/lock: four today). */
#define MAX_TEMPS 8
/* At most this many rlimits (five kinds today; one of each). */
#define MAX_LIMITS 8

struct limit {
    int resource;
    struct rlimit value;
};

/* A run's sandbox as its options asked for it (sandbox_parse). */
struct sandbox {
    int session, network, gated, nlimits, ntemps;
    pid_t parent;
    uid_t uid;
    const char *image, *dir;
    const char *temps[MAX_TEMPS];
    struct limit limits[MAX_LIMITS];
    /* The binary and its arguments, NULL-ended; the binary an absolute path. */
    char **command;
    /*
     * -n's network: -1, a new empty one made by this process (unshare); else a descriptor of an empty one kept by
     * the launcher, joined (setns).
     */
    int netns;
};

/*
 * Reads the options "[-s] [-k PID] [-n] [-g] [-r RES=SOFT:HARD]... [-u UID] [-d IMAGE -w DIR [-t TEMP]...] --
 * COMMAND [ARG...]" of argv (argv[0] the program's name) into s. 0, or E_USAGE with why (at most why_size bytes)
 * naming the argument at fault. Exits nothing: the launcher refuses a bad request and goes on.
 */
int sandbox_parse(int argc, char **argv, struct sandbox *s, char *why, size_t why_size);

/*
 * Makes every step s asks for, in order, then execve(s->command[0], s->command, envp). Never returns: a step that
 * fails ends the process with its code (above) and a line on stderr naming it.
 */
_Noreturn void sandbox_enter(const struct sandbox *s, char **envp);

/* Says why on stderr ("punctual-sandbox: ...: <errno's text>") and ends the process with code. */
_Noreturn void sandbox_fail(int code, const char *format, ...) __attribute__((format(printf, 2, 3)));

#endif
