# --precision float32|float64 end to end (tests/cli/test_precision.sh; docs/precision.md): the
# output's precision attribute, float32 against float64 positions, the refusals (exit status 2).
foreach(case help run refuse resume)
  add_test(NAME cli_precision_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_precision.sh ${case} $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR})
endforeach()
