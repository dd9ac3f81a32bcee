# The backend's sets of terms (backend.h assemble, terms_energy, iterate; tests/unit/test_assemble.c):
# energies, gradients and Hessians of SIPD_TERMS_ALL and SIPD_TERMS_NO_STRETCH against differences.
add_executable(test_assemble ${CMAKE_CURRENT_LIST_DIR}/test_assemble.c)
target_link_libraries(test_assemble PRIVATE sipd_core)
foreach(case energy gradient hessian iterate)
  add_test(NAME assemble_${case} COMMAND test_assemble ${case})
endforeach()
