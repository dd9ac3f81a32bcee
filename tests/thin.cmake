# Contact of thin bodies: shells and rods as collision primitives with a contact thickness
# (tests/test_thin.c, DESIGN.md §3.9, README "Contact").  include()d by tests/CMakeLists.txt.
add_executable(test_thin ${CMAKE_CURRENT_LIST_DIR}/test_thin.c)
target_link_libraries(test_thin PRIVATE sipd_core)
target_compile_definitions(test_thin PRIVATE SIPD_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
foreach(case ground fold rods drape slope methods rodself)
  add_test(NAME thin_${case} COMMAND test_thin ${case})
  # small models: one thread (OpenMP threads spinning on a loaded 2-core machine cost 4x)
  set_tests_properties(thin_${case} PROPERTIES TIMEOUT 600 LABELS contact ENVIRONMENT OMP_NUM_THREADS=1)
endforeach()
