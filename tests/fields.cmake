# output.fields (issue 28): the per-element fields of src/physics/fields.h against independent
# computations (tests/test_fields.c), and whole runs read back with h5py (tests/test_fields.sh:
# skipped, 77, without /usr/bin/python3's numpy and h5py).  Each well under a second.
add_executable(test_fields ${CMAKE_CURRENT_LIST_DIR}/test_fields.c)
target_link_libraries(test_fields PRIVATE sipd_core)
foreach(case solid membrane edge)
  add_test(NAME fields_${case} COMMAND test_fields ${case})
  set_tests_properties(fields_${case} PROPERTIES TIMEOUT 60)
endforeach()
foreach(case stretch rotation contact kinds resume)
  add_test(NAME fields_run_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_fields.sh $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR}/scenes
                   ${CMAKE_CURRENT_BINARY_DIR}/fields_${case} ${case})
  set_tests_properties(fields_run_${case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
