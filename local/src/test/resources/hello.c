/* The end-to-end test's binary: prints who it is and its arguments, then exits with the code in argv[1]. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    printf("hello from run %s attempt %s\n", getenv("SCHEDULER_RUN_ID"), getenv("SCHEDULER_ATTEMPT"));
    fprintf(stderr, "stderr is captured too\n");
    return argc > 1 ? atoi(argv[1]) : 0;
}
