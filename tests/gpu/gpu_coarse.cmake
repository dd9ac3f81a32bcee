# Two-level SIPD (solver.coarse) on the CUDA backend (tests/gpu/test_gpu_coarse.c), label `gpu`:
# the hessian / gradient / set_direction ops against the CPU backend's, and two-level solves
# against the CPU's and Newton's; method newton on the CUDA backend against the CPU's.  Exit 77 without a usable device (CTest: "Not Run").
if(TARGET sipd_cuda)
  add_executable(test_gpu_coarse ${CMAKE_CURRENT_LIST_DIR}/test_gpu_coarse.c)
  target_link_libraries(test_gpu_coarse PRIVATE sipd_cuda sipd_core)
  set_target_properties(test_gpu_coarse PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  foreach(case ops solve budget newton pairs)
    add_test(NAME gpu_coarse_${case} COMMAND test_gpu_coarse ${case})
    set_tests_properties(gpu_coarse_${case} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300
                         RESOURCE_LOCK "${SIPD_GPU_LOCK}")
  endforeach()
endif()
