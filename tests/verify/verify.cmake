# Verification against independent references (tests/verify/test_verify.c, docs/design.md §6).
add_executable(test_verify ${CMAKE_CURRENT_LIST_DIR}/test_verify.c)
target_link_libraries(test_verify PRIVATE sipd_core)
add_test(NAME verify_plate_hole COMMAND test_verify plate_hole ${SIPD_TEST_DATA}/meshes/plate_hole.msh)
add_test(NAME verify_cantilever_linear COMMAND test_verify cantilever_linear)
add_test(NAME verify_full_step COMMAND test_verify full_step)
set_tests_properties(verify_plate_hole PROPERTIES LABELS slow TIMEOUT 300)
set_tests_properties(verify_cantilever_linear verify_full_step PROPERTIES TIMEOUT 120)
