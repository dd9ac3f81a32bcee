# output.fields (issue 28) in whole runs of sipd-run, read back with h5py (tests/cli/test_fields.sh:
# skipped, 77, without /usr/bin/python3's numpy and h5py; each well under a second).  The fields'
# formulas themselves: tests/unit/fields.cmake.
foreach(case stretch rotation contact kinds resume)
  add_test(NAME fields_run_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_fields.sh $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR}/scenes
                   ${CMAKE_CURRENT_BINARY_DIR}/fields_${case} ${case})
  set_tests_properties(fields_run_${case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
