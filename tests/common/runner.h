/* runner.h — the one main of the C test programs (docs/testing.md, "Adding a test case").
 *
 * A test program lists its cases in a table and hands it to test_main:
 *
 *   static const test_case cases[] = {
 *       {"ground", test_ground},                                 void f(void)
 *       {"pt_tri", .run_rc = test_pt_tri},                       int f(void): 77 skips
 *       {"bad", .run_args = case_bad, .args = "FIXTURE"},        int f(int argc, char **argv): 77 skips
 *   };
 *   static const test_program program = {"test_thin", TEST_CASES(cases), .setup = setup,
 *                                         .teardown = scratch_close};
 *   TEST_MAIN(program)
 *
 * The command line is  PROG [LEAD...] CASE [ARGS...]  (LEAD: the program's .lead words, e.g. a
 * scratch directory).  test_main
 *   - picks the case argv[nlead + 1] names (.dflt when none is named; "all" runs every case in
 *     table order where .all is set; where no case takes arguments, every word is a case name);
 *   - on an unknown or missing case name, or missing words (.args words without '[' are required),
 *     prints "usage: PROG case|case ARGS|...|all" on stderr and returns 2;
 *   - calls .setup(which, argc, argv) once (which: the case name as given; argc/argv: the whole
 *     command line): a non-zero return is the exit code (1: could not set up, 77: skip);
 *   - runs the case(s); a case's own 77 (run_rc, run_args) tears down and returns 77 (skip);
 *     other return values are ignored (failures are what CHECK counted);
 *   - calls .teardown() once; returns 1 with "PROG CASE: N check(s) failed" on stderr when CHECK
 *     counted failures, else 0 with "PROG CASE: all checks passed [note]" on stdout.
 *
 * Header-only (static functions, like check.h, which it includes): once per test program.
 */
#ifndef SIPD_TEST_RUNNER_H
#define SIPD_TEST_RUNNER_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

typedef struct {
    const char *name;
    void (*run)(void);                       /* the case; or */
    int (*run_rc)(void);                     /* one that returns 77 to skip; or */
    int (*run_args)(int argc, char **argv);  /* one given the whole command line (77: skip); or */
    void (*run_data)(const void *data);      /* one row of a data table: run_data(data) */
    const char *args;                        /* the words after its name, for usage: "FILE [MODEL]" */
    const void *data;
} test_case;

typedef struct {
    const char *name;           /* the program, as usage and the summary line say it */
    const test_case *cases;
    size_t ncases;
    const char *lead;           /* the words before the case name ("SCRATCH_DIR"), or NULL */
    const char *dflt;           /* the case run when none is named; NULL: usage, exit 2 */
    int all;                    /* "all" runs every case */
    int (*setup)(const char *which, int argc, char **argv);
    void (*teardown)(void);
    const char *note;           /* appended to the pass line, e.g. "(float64 physics)" */
} test_program;

#define TEST_CASES(table) (table), (sizeof(table) / sizeof((table)[0]))

#define TEST_MAIN(program)                                                                        \
    int main(int argc, char **argv)                                                               \
    {                                                                                             \
        return test_main(&(program), argc, argv);                                                 \
    }

/* The number of words in s that are not optional ("[...]"); 0 for NULL. */
static inline int test_required_words_(const char *s)
{
    int n = 0, depth = 0, in_word = 0;
    for (; s && *s; s++) {
        if (*s == '[')
            depth++;
        else if (*s == ']')
            depth--;
        if (*s == ' ') {
            in_word = 0;
        } else if (!in_word) {
            in_word = 1;
            if (depth == 0)
                n++;
        }
    }
    return n;
}

static inline int test_words_(const char *s)
{
    int n = 0, in_word = 0;
    for (; s && *s; s++) {
        if (*s == ' ')
            in_word = 0;
        else if (!in_word)
            in_word = 1, n++;
    }
    return n;
}

static inline int test_usage_(const test_program *p)
{
    size_t i;
    int with_args = 0;
    for (i = 0; i < p->ncases; i++)
        with_args |= p->cases[i].args != NULL;
    fprintf(stderr, "usage: %s%s%s ", p->name, p->lead ? " " : "", p->lead ? p->lead : "");
    for (i = 0; i < p->ncases; i++)
        fprintf(stderr, "%s%s%s%s", i ? (with_args ? " | " : "|") : "", p->cases[i].name, p->cases[i].args ? " " : "",
                p->cases[i].args ? p->cases[i].args : "");
    fprintf(stderr, "%s\n", p->all ? (with_args ? " | all" : "|all") : "");
    return 2;
}

static inline const test_case *test_find_(const test_program *p, const char *name)
{
    size_t i;
    for (i = 0; i < p->ncases; i++)
        if (strcmp(p->cases[i].name, name) == 0)
            return &p->cases[i];
    return NULL;
}

static inline int test_run_case_(const test_case *c, int argc, char **argv)
{
    if (c->run)
        c->run();
    else if (c->run_rc)
        return c->run_rc();
    else if (c->run_args)
        return c->run_args(argc, argv);
    else if (c->run_data)
        c->run_data(c->data);
    return 0;
}

static inline int test_main(const test_program *p, int argc, char **argv)
{
    int nlead = test_words_(p->lead), first = nlead + 1, last, k, multi = 1;
    const char *which;
    size_t i;
    if (argc < first)
        return test_usage_(p);
    which = argc > first ? argv[first] : p->dflt;
    if (!which)
        return test_usage_(p);
    for (i = 0; i < p->ncases; i++)
        if (p->cases[i].args)
            multi = 0;
    /* check every name (and a lone case's words) before anything runs */
    last = multi && argc > first ? argc - 1 : first;
    for (k = first; k <= last; k++) {
        const char *name = k < argc ? argv[k] : which;
        const test_case *c;
        if (p->all && strcmp(name, "all") == 0)
            continue;
        c = test_find_(p, name);
        if (!c) {
            fprintf(stderr, "%s: unknown case '%s'\n", p->name, name);
            return test_usage_(p);
        }
        if ((argc > first ? argc - first - 1 : 0) < test_required_words_(c->args)) {
            fprintf(stderr, "%s: case '%s' needs %s\n", p->name, name, c->args);
            return test_usage_(p);
        }
    }
    if (p->setup) {
        int rc = p->setup(which, argc, argv);
        if (rc)
            return rc;
    }
    for (k = first; k <= last; k++) {
        const char *name = k < argc ? argv[k] : which;
        int every = p->all && strcmp(name, "all") == 0;
        for (i = 0; i < p->ncases; i++)
            if (every || strcmp(name, p->cases[i].name) == 0) {
                if (test_run_case_(&p->cases[i], argc, argv) == 77) {
                    if (p->teardown)
                        p->teardown();
                    return 77;
                }
            }
    }
    if (p->teardown)
        p->teardown();
    if (failures) {
        fprintf(stderr, "%s %s: %d check(s) failed\n", p->name, which, failures);
        return 1;
    }
    printf("%s %s: all checks passed%s%s\n", p->name, which, p->note ? " " : "", p->note ? p->note : "");
    return 0;
}

#endif
