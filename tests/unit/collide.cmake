# Collision detection (src/collide.c, src/physics/distance.h, docs/design.md §3.6): verification
# tests, double precision.  include()d by tests/CMakeLists.txt.
add_executable(test_collide ${CMAKE_CURRENT_LIST_DIR}/test_collide.c)
target_link_libraries(test_collide PRIVATE sipd_core)
foreach(case pt_tri edge_edge brute threads exclusions orientation outside hysteresis rest policy ccd)
  add_test(NAME collide_${case} COMMAND test_collide ${case})
  set_tests_properties(collide_${case} PROPERTIES TIMEOUT 120)
endforeach()
