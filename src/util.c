#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int sipd_quiet = 0;
volatile sig_atomic_t sipd_stop_flag = 0;

void sipd_error_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    if (file && line > 0)
        fprintf(stderr, "%s:%d: ", file, line);
    else if (file)
        fprintf(stderr, "%s: ", file);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void sipd_error(const char *fmt, ...)
{
    va_list ap;
    fputs("sipd-run: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void sipd_info(const char *fmt, ...)
{
    va_list ap;
    if (sipd_quiet)
        return;
    fputs("sipd-run: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void *sipd_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        sipd_error("out of memory (%zu bytes)", n);
    return p;
}

void *sipd_calloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        sipd_error("out of memory (%zu x %zu bytes)", count, size);
    return p;
}

double sipd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

char *sipd_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f)
        return NULL;
    for (;;) {
        if (n + 65536 + 1 > cap) {
            size_t nc = cap ? 2 * cap : 131072;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap = nc;
        }
        size_t r = fread(buf + n, 1, 65536, f);
        n += r;
        if (r < 65536)
            break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

char *sipd_path_join(const char *dir, const char *path)
{
    size_t ld, lp;
    char *r;
    if (!path)
        return NULL;
    if (path[0] == '/' || !dir || !dir[0] || strcmp(dir, ".") == 0) {
        r = sipd_malloc(strlen(path) + 1);
        if (r)
            strcpy(r, path);
        return r;
    }
    ld = strlen(dir);
    lp = strlen(path);
    r = sipd_malloc(ld + lp + 2);
    if (!r)
        return NULL;
    memcpy(r, dir, ld);
    r[ld] = '/';
    memcpy(r + ld + 1, path, lp + 1);
    return r;
}

char *sipd_dirname(const char *path)
{
    const char *s = strrchr(path, '/');
    char *r;
    if (!s) {
        r = sipd_malloc(2);
        if (r)
            strcpy(r, ".");
        return r;
    }
    if (s == path)
        s++; /* "/file" -> "/" */
    r = sipd_malloc((size_t)(s - path) + 1);
    if (r) {
        memcpy(r, path, (size_t)(s - path));
        r[s - path] = '\0';
    }
    return r;
}
