# Contact of thin bodies: shells and rods as collision primitives with a contact thickness
# (tests/unit/test_thin.c, docs/design.md §3.9, docs/contact.md).  include()d by tests/CMakeLists.txt.
add_executable(test_thin ${CMAKE_CURRENT_LIST_DIR}/test_thin.c)
target_link_libraries(test_thin PRIVATE sipd_core)
target_compile_definitions(test_thin PRIVATE SIPD_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
foreach(case ground fold rods drape slope methods rodself stiffness)
  add_test(NAME thin_${case} COMMAND test_thin ${case})
  # small models: one thread (OpenMP threads spinning on a loaded 2-core machine cost 4x)
  set_tests_properties(thin_${case} PROPERTIES TIMEOUT 600 LABELS contact ENVIRONMENT OMP_NUM_THREADS=1)
endforeach()
# Under ASan (Debug) these run 60-100x slower than in release: measured on a loaded 2-core
# machine thin_ground 238 s, thin_rods 70 s, thin_drape 26 s, thin_rodself 421 s (all passed);
# thin_methods passed 600 s without finishing (Newton and the others at tolerance 1e-10),
# thin_fold and thin_slope would take as long (7 s and 10 s in release): not in `make asan`,
# like bodies_noodles; nor thin_ground and thin_rodself (CI's ASan budget: thin_rods and
# thin_drape keep the thin-body contact paths under the sanitizers).
set_tests_properties(thin_fold thin_slope thin_methods thin_ground thin_rodself PROPERTIES LABELS "contact;slow")
