# Second-derivative physics (src/physics/eig.h, hessian.h; the clamp/abs splits of material.h):
# verification tests, double precision.  include()d by tests/CMakeLists.txt.
add_executable(test_hessian ${CMAKE_CURRENT_LIST_DIR}/test_hessian.c)
target_link_libraries(test_hessian PRIVATE sipd_core)
foreach(case eig dpdf vblock element split)
  add_test(NAME hessian_${case} COMMAND test_hessian ${case})
  set_tests_properties(hessian_${case} PROPERTIES TIMEOUT 120)
endforeach()
