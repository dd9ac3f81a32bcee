# The mixed variational FEM solver (src/mixed.c, src/physics/mixed.h; docs/design.md §3.11).
add_executable(test_mixed ${CMAKE_CURRENT_LIST_DIR}/test_mixed.c)
target_link_libraries(test_mixed PRIVATE sipd_core)
foreach(case derivs newton models trajectory cap linear contact backend_fail edge_derivs kinds contact_cholmod tri_derivs cloth)
  add_test(NAME mixed_${case} COMMAND test_mixed ${case})
endforeach()
