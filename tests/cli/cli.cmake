# h5attr: sets or deletes a root attribute (output states only an exactly timed kill leaves)
add_executable(h5attr ${CMAKE_CURRENT_LIST_DIR}/h5attr.c)
target_include_directories(h5attr PRIVATE ${HDF5_C_INCLUDE_DIRS})
target_link_libraries(h5attr PRIVATE ${HDF5_C_LIBRARIES})
foreach(case help usage_errors bad_scene bad_mesh dry_run dry_run_device mistakes run_layout sigkill sigterm live_reader resume_identical resume_contact resume_friction resume_errors signal_resume checkpoint_seconds
        hostile_scene hostile_mesh output_safety resume_finished signal_substep diverged load_signal
        long_frame signal_in_solve signal_factor history)
  add_test(NAME cli_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_cli.sh ${case} $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR}
                   $<TARGET_FILE:h5attr>)
endforeach()
# signal_substep: ~8 s in a release build, 6 min under ASan (Debug): not in `make asan`;
# signal_in_solve (issue 31): 6 s in a release build, 99 s under ASan (two 40000-iteration solves)
set_tests_properties(cli_signal_resume cli_signal_substep cli_signal_in_solve PROPERTIES LABELS slow)
