foreach(case help usage_errors bad_scene bad_mesh dry_run run_layout sigkill sigterm live_reader resume_identical resume_contact resume_errors signal_resume checkpoint_seconds
        hostile_mesh)
  add_test(NAME cli_${case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh ${case} $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR})
endforeach()
set_tests_properties(cli_signal_resume PROPERTIES LABELS slow)
