/* fuzz_common.h — shared by the libFuzzer harnesses (tests/fuzz/README.md): the loaders read
 * files, so each input is written to a scratch directory (/dev/shm when it exists). */
#ifndef SIPD_FUZZ_COMMON_H
#define SIPD_FUZZ_COMMON_H

#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A per-process scratch directory, created once. */
static const char *fuzz_dir(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir, sizeof dir, "%s/sipd_fuzz_%ld", base, (long)getpid());
        mkdir(dir, 0777);
    }
    return dir;
}

/* dir/name; static buffer per call site is not needed: the result is malloc'ed. */
static char *fuzz_path(const char *name)
{
    const char *d = fuzz_dir();
    char *p = malloc(strlen(d) + strlen(name) + 2);
    if (!p)
        abort();
    sprintf(p, "%s/%s", d, name);
    return p;
}

static void fuzz_write(const char *path, const uint8_t *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (n && fwrite(data, 1, n, f) != n)
        abort();
    fclose(f);
}

#endif
