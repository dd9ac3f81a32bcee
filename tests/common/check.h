/* check.h — the one CHECK of the C (and C++ emulation) tests (docs/testing.md, "Shared helpers").
 *
 *   CHECK(cond);                       count a failure when cond is false
 *   CHECK(cond, "fmt", args...);       the same, with a printf message
 *
 * A failed check adds one to `failures` and prints "FAIL file:line: cond: message" on stderr; the
 * first CHECK_PRINT_MAX failures are printed, the rest only counted.  A test's main returns
 * non-zero when `failures` is (each test says so itself: some also print a summary).
 *
 * Header-only (static state): include it once per test program, directly or through fixture.h.
 * Strict C11 and C++: the macro picks its form by the number of arguments (up to 32), so
 * CHECK(cond) needs no empty variadic list; the condition is printed as written (unexpanded).
 */
#ifndef SIPD_TEST_CHECK_H
#define SIPD_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#ifndef CHECK_PRINT_MAX
#define CHECK_PRINT_MAX 50
#endif

#if defined(__GNUC__)
#define CHECK_PRINTF_(f, a) __attribute__((format(printf, f, a)))
#else
#define CHECK_PRINTF_(f, a)
#endif

static int failures = 0;

/* The condition's text: what CHECK's arguments spell up to the first top-level comma (string and
 * character literals and brackets skipped). */
static inline int check_cond_len_(const char *t)
{
    int n, depth = 0;
    char quote = 0;
    for (n = 0; t[n]; n++) {
        char c = t[n];
        if (quote) {
            if (c == '\\' && t[n + 1])
                n++;
            else if (c == quote)
                quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if (c == ')' || c == ']' || c == '}') {
            depth--;
        } else if (c == ',' && depth == 0) {
            break;
        }
    }
    return n;
}

/* Count a failure; say whether to print it (and say once that the rest are not printed). */
static inline int check_count_(void)
{
    failures++;
    if (failures == CHECK_PRINT_MAX + 1)
        fprintf(stderr, "FAIL: more than %d failed checks: the rest are counted, not printed\n", CHECK_PRINT_MAX);
    return failures <= CHECK_PRINT_MAX;
}

static inline void check_fail_bare_(const char *file, int line, const char *text)
{
    if (check_count_())
        fprintf(stderr, "FAIL %s:%d: %.*s\n", file, line, check_cond_len_(text), text);
}

static inline void check_fail_(const char *file, int line, const char *text, const char *fmt, ...) CHECK_PRINTF_(4, 5);
static inline void check_fail_(const char *file, int line, const char *text, const char *fmt, ...)
{
    va_list ap;
    if (!check_count_())
        return;
    fprintf(stderr, "FAIL %s:%d: %.*s: ", file, line, check_cond_len_(text), text);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

#define CHECK_BARE_(text, cond)                                                                   \
    do {                                                                                          \
        if (!(cond))                                                                              \
            check_fail_bare_(__FILE__, __LINE__, text);                                           \
    } while (0)
#define CHECK_MSG_(text, cond, ...)                                                               \
    do {                                                                                          \
        if (!(cond))                                                                              \
            check_fail_(__FILE__, __LINE__, text, __VA_ARGS__);                                   \
    } while (0)
#define CHECK_PICK_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, \
                    a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32, form, ...) \
    form
#define CHECK(...)                                                                                \
    CHECK_PICK_(__VA_ARGS__, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, \
                CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_,  \
                CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_,  \
                CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_,  \
                CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_BARE_, 0)                     \
    (#__VA_ARGS__, __VA_ARGS__)

#endif
