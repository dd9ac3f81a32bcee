# HDF5 output module (src/h5out.c): round trip of every contract path, and crash safety.
set(H5OUT_SCRATCH ${CMAKE_CURRENT_BINARY_DIR}/h5out_scratch)

add_executable(test_h5out ${CMAKE_CURRENT_LIST_DIR}/test_h5out.c)
target_link_libraries(test_h5out PRIVATE sipd_core)
add_executable(test_h5out_kill ${CMAKE_CURRENT_LIST_DIR}/test_h5out_kill.c)
target_link_libraries(test_h5out_kill PRIVATE sipd_core)

# Start from an empty scratch directory so h5out_create's mkdir -p is exercised.
add_test(NAME h5out_scratch_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${H5OUT_SCRATCH})
set_tests_properties(h5out_scratch_clean PROPERTIES FIXTURES_SETUP h5out_scratch)

add_test(NAME h5out_roundtrip COMMAND test_h5out ${H5OUT_SCRATCH}/roundtrip)
add_test(NAME h5out_kill COMMAND test_h5out_kill ${H5OUT_SCRATCH}/kill)
set_tests_properties(h5out_roundtrip h5out_kill PROPERTIES
                     FIXTURES_REQUIRED h5out_scratch TIMEOUT 300)
# A SIGKILL inside a flush, at every file write of one (issue 31, item 4): the resume must continue.
add_executable(test_h5out_torn ${CMAKE_CURRENT_LIST_DIR}/test_h5out_torn.c)
target_link_libraries(test_h5out_torn PRIVATE sipd_core)
add_test(NAME h5out_torn COMMAND test_h5out_torn ${H5OUT_SCRATCH}/torn)
set_tests_properties(h5out_torn PROPERTIES FIXTURES_REQUIRED h5out_scratch TIMEOUT 300)
# The streamed convergence log (issue 31): rows reach the file inside a frame, memory stays bounded,
# a row is written within a second, output.history thins the history (and what that saves).
add_executable(test_h5out_log ${CMAKE_CURRENT_LIST_DIR}/test_h5out_log.c)
target_link_libraries(test_h5out_log PRIVATE sipd_core)
foreach(case stream seconds history)
  add_test(NAME h5out_log_${case} COMMAND test_h5out_log ${H5OUT_SCRATCH}/log_${case} ${case})
  set_tests_properties(h5out_log_${case} PROPERTIES FIXTURES_REQUIRED h5out_scratch TIMEOUT 300)
endforeach()
