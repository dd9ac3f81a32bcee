# Body–body contact and obstacles through the whole solver (tests/unit/test_bodies.c).
add_executable(test_bodies ${CMAKE_CURRENT_LIST_DIR}/test_bodies.c)
target_link_libraries(test_bodies PRIVATE sipd_core)
target_compile_definitions(test_bodies PRIVATE SIPD_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
foreach(case balls stack obstacle tilt creep slope methods self noodles)
  add_test(NAME bodies_${case} COMMAND test_bodies ${case})
  set_tests_properties(bodies_${case} PROPERTIES TIMEOUT 600 LABELS contact)
endforeach()
# 10 s in release, over 600 s under ASan since every solve of the noodle pile runs its 100
# iterations (they stop at the cap under the relative force residual): not in `make asan`.
set_tests_properties(bodies_noodles PROPERTIES LABELS "contact;slow")
# 74 s in release, 160 s under ASan (2026-12-07, 2 cores): the slow label (docs/testing.md: over
# about 20 s), so not in `make asan`; bodies_tilt and bodies_creep keep friction there.
set_tests_properties(bodies_slope PROPERTIES LABELS "contact;slow")
