# Two-level SIPD (solver.coarse, src/coarse.c; tests/unit/test_coarse.c): the prolongation, the
# Galerkin coarse operator (trilinear and quadratic), thin bodies' grids, Newton's solution, a fixed budget, the energy and the scene keys.
add_executable(test_coarse ${CMAKE_CURRENT_LIST_DIR}/test_coarse.c)
target_link_libraries(test_coarse PRIVATE sipd_core)
foreach(case partition galerkin thin newton budget energy scene pairs_galerkin pairs_newton)
  add_test(NAME coarse_${case} COMMAND test_coarse ${case})
endforeach()
# budget runs Newton on a 525-vertex beam at nu = 0.49 (about 10 s alone, more on a loaded machine)
set_tests_properties(coarse_budget PROPERTIES LABELS slow TIMEOUT 900)
