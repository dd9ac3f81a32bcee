# The GPU collision narrow phase (kernels/collide_cuda.cu) against the CPU's (src/collide.c):
# tests/test_gpu_collide.c.  Registered only when the CUDA backend is built (target sipd_cuda:
# nvcc found and not a sanitizer build).
#   gpu_collide           label `gpu`; exits 77 without a usable CUDA device (CTest: "Not Run")
#   gpu_collide_selftest  no device needed: a host float32 stand-in (tests/gpu_collide_emu.c, the
#                         kernel's per-candidate code in a loop) replaces the GPU, which checks the
#                         test's logic and float32 tolerances, not the CUDA code
if(TARGET sipd_cuda)
  add_executable(test_gpu_collide ${CMAKE_CURRENT_LIST_DIR}/test_gpu_collide.c
                                  ${CMAKE_CURRENT_LIST_DIR}/gpu_collide_emu.c)
  target_link_libraries(test_gpu_collide PRIVATE sipd_cuda sipd_core)
  set_target_properties(test_gpu_collide PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  add_test(NAME gpu_collide COMMAND test_gpu_collide)
  set_tests_properties(gpu_collide PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300
                       RESOURCE_LOCK sipd_gpu)
  add_test(NAME gpu_collide_selftest COMMAND test_gpu_collide)
  set_tests_properties(gpu_collide_selftest PROPERTIES ENVIRONMENT SIPD_TEST_GPU_SELFTEST=1 TIMEOUT 120)
endif()
