/*
 * punctual-sandbox, the sandbox's helper, used in one of two ways:
 *
 *   punctual-sandbox [-s] [-k PID] [-n] [-g] [-r RES=SOFT:HARD]... [-u UID] [-d IMAGE -w DIR [-t TEMP]...]
 *                    -- COMMAND [ARG...]
 *       puts one run into its sandbox and execs its binary (sandbox.c): started by the executor per run;
 *
 *   punctual-sandbox --serve PID
 *       the launcher (launcher.c): started once by the executor whose pid is PID, it starts every sandboxed run of
 *       that executor from then on, each with the same steps, and reports how each ended.
 *
 * Usage errors exit 110 with a line on stderr saying what is wrong.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "launcher.h"
#include "sandbox.h"

int main(int argc, char **argv, char **envp) {
    if (argc >= 2 && strcmp(argv[1], "--serve") == 0) {
        if (argc != 3) {
            fputs("punctual-sandbox: usage: punctual-sandbox --serve PID: invalid\n", stderr);
            return E_USAGE;
        }
        return launcher_serve(argv[2]);
    }
    struct sandbox s;
    char why[512];
    if (sandbox_parse(argc, argv, &s, why, sizeof why) != 0) {
        fprintf(stderr, "punctual-sandbox: %s: invalid\n", why);
        return E_USAGE;
    }
    sandbox_enter(&s, envp);
}
