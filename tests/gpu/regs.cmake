# The kernels' register budget (issue 29), label `regs`: tests/gpu/check-registers.sh compiles
# kernels/*.cu for sm_90 with ptxas -v (tools/kernel-registers.sh; nvcc only, no GPU, about a
# minute) and compares every kernel with tests/gpu/register-budget.txt.  Registered in every
# build; skipped (exit 77) where no nvcc is found (NVCC, PATH, /usr/local/cuda/bin).
add_test(NAME regs_budget COMMAND bash ${CMAKE_SOURCE_DIR}/tests/gpu/check-registers.sh)
set_tests_properties(regs_budget PROPERTIES LABELS regs SKIP_RETURN_CODE 77 TIMEOUT 600)
if(CMAKE_CUDA_COMPILER)
  set_tests_properties(regs_budget PROPERTIES ENVIRONMENT "NVCC=${CMAKE_CUDA_COMPILER}")
endif()
