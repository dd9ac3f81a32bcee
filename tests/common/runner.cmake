# runner.h's self-test (tests/common/test_runner.c): the exit code and messages of test_main for a
# passing, failing, skipped and unknown case, a missing word and a failed set-up, and the usage of a
# real program (test_thin) on an unknown case.  include()d by tests/CMakeLists.txt; the same file,
# run with `cmake -P` (RUNNER_PROG set), is the check of one such run.
if(DEFINED RUNNER_PROG)
  separate_arguments(args UNIX_COMMAND "${RUNNER_ARGS}")
  execute_process(COMMAND ${RUNNER_PROG} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("exit ${rc}\nstdout:\n${out}stderr:\n${err}")
  if(NOT rc STREQUAL RUNNER_RC)
    message(FATAL_ERROR "exit ${rc}, expected ${RUNNER_RC}")
  endif()
  if(DEFINED RUNNER_OUT AND NOT out MATCHES "${RUNNER_OUT}")
    message(FATAL_ERROR "stdout does not match: ${RUNNER_OUT}")
  endif()
  if(DEFINED RUNNER_ERR AND NOT err MATCHES "${RUNNER_ERR}")
    message(FATAL_ERROR "stderr does not match: ${RUNNER_ERR}")
  endif()
  return()
endif()

add_executable(test_runner ${CMAKE_CURRENT_LIST_DIR}/test_runner.c)
# runner_NAME: run PROG with ARGS; expect exit RC, and stdout / stderr matching OUT / ERR ("" : any)
function(sipd_runner_test name prog args rc out err)
  add_test(NAME runner_${name}
           COMMAND ${CMAKE_COMMAND} -DRUNNER_PROG=$<TARGET_FILE:${prog}> "-DRUNNER_ARGS=${args}"
                   -DRUNNER_RC=${rc} "-DRUNNER_OUT=${out}" "-DRUNNER_ERR=${err}"
                   -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/runner.cmake)
  set_tests_properties(runner_${name} PROPERTIES TIMEOUT 30)
endfunction()
sipd_runner_test(pass test_runner "pass" 0 "^setup pass\nteardown\ntest_runner pass: all checks passed\n$" "^$")
sipd_runner_test(fail test_runner "fail" 1 "^setup fail\nteardown\n$"
                 "FAIL [^\n]*test_runner.c:[0-9]+: 1 \\+ 1 == 3: the failing case[^\n]*\ntest_runner fail: 1 check\\(s\\) failed\n$")
sipd_runner_test(skip test_runner "skip" 77 "^setup skip\nskipping\nteardown\n$" "^$")
sipd_runner_test(args test_runner "args word" 0 "all checks passed" "^$")
sipd_runner_test(args_missing test_runner "args" 2 "^$" "needs WORD\nusage: test_runner ")
sipd_runner_test(setup_fails test_runner "nosetup" 1 "^setup nosetup\n$" "^$")
sipd_runner_test(unknown test_runner "nosuch" 2 "^$"
                 "^test_runner: unknown case 'nosuch'\nusage: test_runner pass \\| fail \\| skip \\| args WORD \\| nosetup\n$")
sipd_runner_test(missing test_runner "" 2 "^$" "^usage: test_runner ")
sipd_runner_test(thin_unknown test_thin "nosuch" 2 "^$" "usage: test_thin ground\\|fold\\|")
