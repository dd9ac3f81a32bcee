# Element kinds beyond tetrahedra (tests/test_kinds.c): springs, rods and cloth against finite
# differences, Euler–Bernoulli, the catenary, plate theory, the analytic membrane stretch and
# Newton's solution.
add_executable(test_kinds ${CMAKE_CURRENT_SOURCE_DIR}/test_kinds.c)
target_link_libraries(test_kinds PRIVATE sipd_core)
foreach(case fd cantilever chain methods model strip membrane cloth_methods)
  add_test(NAME kinds_${case} COMMAND test_kinds ${case})
endforeach()
add_test(NAME kinds_meshes COMMAND test_kinds meshes ${SIPD_TEST_DATA}/meshes)
# the same cloth with each of the other membrane models (physics/tri.h; README "Materials")
foreach(model neohookean arap corotational stvk)
  add_test(NAME kinds_cloth_methods_${model} COMMAND test_kinds cloth_methods ${model})
endforeach()
