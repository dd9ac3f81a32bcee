/* util.h — status codes and error reporting shared by all host modules.
 *
 * Modules return a status; only main() exits.  Input errors are reported as
 * "file:line: message" naming the user's input file (scene or mesh), never the C source.
 */
#ifndef SIPD_UTIL_H
#define SIPD_UTIL_H

#include <signal.h>
#include <stddef.h>

enum {
    SIPD_OK = 0,
    SIPD_EFAIL = 1,    /* runtime failure (I/O, out of memory, solver failure)   */
    SIPD_EINPUT = 2,   /* bad input: scene, mesh, command line                  */
    SIPD_ESIGNAL = 3,  /* stopped by a signal (exit status, docs/scene-reference.md) */
    SIPD_ESTRICT = 4,  /* completed, but a solve did not converge and strict mode  */
                       /* is on (--strict / solver.strict; exit status 4)          */
    SIPD_EDIVERGE = 5  /* the state diverged (non-finite or beyond float32): the run */
                       /* stops; exit status 1 (never returned by main)            */
};

/* "file:line: message\n" on stderr; line <= 0 omits the line, file NULL omits both. */
void sipd_error_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "sipd-run: message\n" on stderr. */
void sipd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The stop request (SIGINT/SIGTERM/SIGUSR1; README "Checkpoints and signals", docs/checkpoints.md):
 * main's signal handler sets it, and every loop that can run for long — the solvers' iterations,
 * conjugate gradients, the narrow and broad phases, a CHOLMOD factorisation (waited on from a
 * worker thread) — polls it and returns SIPD_ESIGNAL, so a run stops within a fraction of a
 * second wherever it is.  Tests may set it directly. */
extern volatile sig_atomic_t sipd_stop_flag;
#define sipd_stopping() (sipd_stop_flag != 0)

/* Quiet flag for informational messages (progress, device choice). */
extern int sipd_quiet;
void sipd_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* malloc/calloc that report failure through sipd_error and return NULL. */
void *sipd_malloc(size_t n);
void *sipd_calloc(size_t count, size_t size);

/* Wall clock in seconds (monotonic). */
double sipd_now(void);

/* Read a whole file into a NUL-terminated buffer (caller frees); NULL on failure. */
char *sipd_read_file(const char *path, size_t *len);

/* Join dir and path unless path is absolute; result malloc'ed. dir may be NULL or "". */
char *sipd_path_join(const char *dir, const char *path);
/* Directory part of a path ("." when none); malloc'ed. */
char *sipd_dirname(const char *path);

#endif
