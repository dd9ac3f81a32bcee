# output.fields (issue 28): the per-element fields of src/physics/fields.h against independent
# computations (tests/unit/test_fields.c), each well under a second; whole runs read back with h5py:
# tests/cli/fields_run.cmake.
add_executable(test_fields ${CMAKE_CURRENT_LIST_DIR}/test_fields.c)
target_link_libraries(test_fields PRIVATE sipd_core)
foreach(case solid membrane edge)
  add_test(NAME fields_${case} COMMAND test_fields ${case})
  set_tests_properties(fields_${case} PROPERTIES TIMEOUT 60)
endforeach()
