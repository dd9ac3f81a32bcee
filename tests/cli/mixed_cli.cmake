# mixed-fem through sipd-run (tests/cli/test_mixed_cli.sh): a bit-identical resume and --dry-run.
foreach(case resume_identical dry_run)
  add_test(NAME mixed_cli_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_mixed_cli.sh ${case} $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR})
endforeach()
