foreach(case help usage_errors bad_scene bad_mesh dry_run run_layout sigkill sigterm)
  add_test(NAME cli_${case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh ${case} $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR})
endforeach()
