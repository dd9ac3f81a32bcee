# Issue 26's study scenes (scenes/study/, written without a solver group) through
# tools/defaults-study.py at reduced size, against what Newton must do on them
# (tests/cli/test_study.sh): the block on the slope sticks, the stack stands.  Skipped (77)
# without /usr/bin/python3's numpy and h5py.  Newton with PCG on one thread: study_slope (40
# frames) and study_stack (30 frames) about 13 s of CPU time each in a release build (50 s wall
# on the loaded 2-core machine): label slow.
foreach(case slope stack)
  add_test(NAME study_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_study.sh $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/study_${case} ${case})
  set_tests_properties(study_${case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS slow)
endforeach()
