# Mesh loader tests (src/mesh.c). Fixtures: tests/data/meshes (see its README.md).
add_executable(test_mesh ${CMAKE_CURRENT_LIST_DIR}/test_mesh.c)
target_link_libraries(test_mesh PRIVATE sipd_core)
if(SIPD_SANITIZE)
  target_compile_definitions(test_mesh PRIVATE SIPD_TEST_SANITIZED)
endif()
foreach(case gmsh_variants tetgen volume surface sparse tetgen_hand malformed kinds perf)
  add_test(NAME mesh_${case}
           COMMAND test_mesh ${case} ${SIPD_TEST_DATA}/meshes
           WORKING_DIRECTORY ${SIPD_TEST_DATA}/meshes)
  set_tests_properties(mesh_${case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
set_tests_properties(mesh_perf PROPERTIES LABELS slow TIMEOUT 300)
