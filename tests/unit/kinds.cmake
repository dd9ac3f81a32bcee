# Element kinds beyond tetrahedra (tests/unit/test_kinds.c): springs, rods and cloth against finite
# differences, Euler–Bernoulli, the catenary, plate theory, the analytic membrane stretch and
# Newton's solution.
add_executable(test_kinds ${CMAKE_CURRENT_LIST_DIR}/test_kinds.c)
target_link_libraries(test_kinds PRIVATE sipd_core)
foreach(case fd bending_auto cantilever chain methods model strip membrane cloth_methods)
  add_test(NAME kinds_${case} COMMAND test_kinds ${case})
endforeach()
add_test(NAME kinds_meshes COMMAND test_kinds meshes ${SIPD_TEST_DATA}/meshes)
# the same cloth with each of the other membrane models (physics/tri.h; docs/materials.md)
# (label slow: ~20 s each in release, so not under ASan, where kinds_cloth_methods and
# materials_membrane cover the same code)
foreach(model neohookean arap corotational stvk)
  add_test(NAME kinds_cloth_methods_${model} COMMAND test_kinds cloth_methods ${model})
  set_tests_properties(kinds_cloth_methods_${model} PROPERTIES LABELS slow)
endforeach()
# Mid-edge (Morley-type) shell bending (tests/unit/test_midedge.c): finite differences, PSD and
# majorising blocks; exactness for quadratics and the patch test on the two unstructured gmsh
# strips (the dihedral hinge must fail it there); the clamped strip against plate theory on
# generated and gmsh meshes under refinement.
add_executable(test_midedge ${CMAKE_CURRENT_LIST_DIR}/test_midedge.c)
target_link_libraries(test_midedge PRIVATE sipd_core)
add_test(NAME midedge_fd COMMAND test_midedge fd)
add_test(NAME midedge_patch COMMAND test_midedge patch ${SIPD_TEST_DATA}/meshes/ho_strip.msh)
add_test(NAME midedge_patch_ho2 COMMAND test_midedge patch ${SIPD_TEST_DATA}/meshes/ho2_strip.msh)
add_test(NAME midedge_strip COMMAND test_midedge strip ${SIPD_TEST_DATA}/meshes)
# (label slow: ~16 s in release, six Newton solves up to 2541 vertices; so not under ASan, where
# midedge_fd and midedge_patch* cover the same code)
set_tests_properties(midedge_strip PROPERTIES LABELS slow)
