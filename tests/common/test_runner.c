/* test_runner.c — runner.h's own test: a program whose cases pass, fail, skip and take a word, so
 * that tests/common/runner.cmake can check the exit codes and messages test_main gives each
 * (a runner that dropped a failure or a usage error would pass every other test).
 */
#include <stdio.h>
#include <string.h>

#include "runner.h"

static void case_pass(void)
{
    CHECK(1 + 1 == 2);
}

static void case_fail(void)
{
    CHECK(1 + 1 == 3, "the failing case of runner.h's self-test");
}

static int case_skip(void)
{
    printf("skipping\n");
    return 77;
}

static int case_args(int argc, char **argv)
{
    CHECK(argc == 3 && strcmp(argv[2], "word") == 0, "the case's word: %s", argc > 2 ? argv[2] : "(none)");
    return 0;
}

static int prog_setup(const char *which, int argc, char **argv)
{
    (void)argc, (void)argv;
    printf("setup %s\n", which);
    return strcmp(which, "nosetup") == 0 ? 1 : 0;
}

static void prog_teardown(void)
{
    printf("teardown\n");
}

static const test_case cases[] = {
    {"pass", .run = case_pass},
    {"fail", .run = case_fail},
    {"skip", .run_rc = case_skip},
    {"args", .run_args = case_args, .args = "WORD"},
    {"nosetup", .run = case_fail},
};
static const test_program program = {"test_runner", TEST_CASES(cases), .setup = prog_setup,
                                     .teardown = prog_teardown};
TEST_MAIN(program)
