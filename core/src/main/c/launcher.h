/* The launcher (launcher.c): serves the executor whose pid is parent until its input ends. */
#ifndef PUNCTUAL_LAUNCHER_H
#define PUNCTUAL_LAUNCHER_H

int launcher_serve(const char *parent);

#endif
