# Stop requests inside a time step (issue 31): each place that polls sipd_stop_flag, and the
# bit-identical resume from the checkpoint it leaves (tests/unit/test_stop.c).
add_executable(test_stop ${CMAKE_CURRENT_LIST_DIR}/test_stop.c)
target_link_libraries(test_stop PRIVATE sipd_core)
foreach(case jacobi jacobi_early gauss_seidel newton_cg newton_cholmod mixed_cholmod mixed_pcg coarse narrow)
  add_test(NAME stop_${case} COMMAND test_stop ${case})
endforeach()
