# Polar decomposition (src/physics/polar.h) and the material models (src/physics/material.h,
# hessian.h; docs/design.md §3.10): verification tests, double precision.  include()d by
# tests/CMakeLists.txt.
add_executable(test_materials ${CMAKE_CURRENT_LIST_DIR}/test_materials.c)
target_link_libraries(test_materials PRIVATE sipd_core)
foreach(case polar polar32 fd kplus kf majorize small nhguard stretch membrane membrane_stretch)
  add_test(NAME materials_${case} COMMAND test_materials ${case})
  set_tests_properties(materials_${case} PROPERTIES TIMEOUT 120)
endforeach()
# every method against Newton for each new material: ~27 s of CPU time in the release build
add_test(NAME materials_methods COMMAND test_materials methods)
set_tests_properties(materials_methods PROPERTIES LABELS slow TIMEOUT 900)
