# Collision detection on the GPU (kernels/collide_cuda.cu) against the CPU's (src/collide.c):
# tests/gpu/test_gpu_collide.c — the narrow phase over the CPU's candidates; the broad phase (the
# same candidate sets on woodpiles with self-contact on and off, a fixed layer, rest-shape
# exclusions); the device pipeline the CUDA backend runs (broad phase from float positions,
# outside test, two narrow phases with hysteresis against collide_narrow's).  Registered only
# when the CUDA backend is built (target sipd_cuda: nvcc found and not a sanitizer build).
#   gpu_collide           label `gpu`; exits 77 without a usable CUDA device (CTest: "Not Run")
#   gpu_collide_selftest  no device needed: host stand-ins (tests/gpu/gpu_collide_emu.c: the kernels'
#                         per-item code in loops, qsort for the radix sort) replace the GPU, which
#                         checks the test's logic, float32 tolerances and the per-item code
#                         (exactly collide_broad's candidates, in its order; the hysteresis) — not
#                         the CUDA calls, launches or CUB
if(TARGET sipd_cuda)
  add_executable(test_gpu_collide ${CMAKE_CURRENT_LIST_DIR}/test_gpu_collide.c
                                  ${CMAKE_CURRENT_LIST_DIR}/gpu_collide_emu.c)
  target_link_libraries(test_gpu_collide PRIVATE sipd_cuda sipd_core)
  set_target_properties(test_gpu_collide PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  add_test(NAME gpu_collide COMMAND test_gpu_collide)
  set_tests_properties(gpu_collide PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300
                       RESOURCE_LOCK "${SIPD_GPU_LOCK}")
  add_test(NAME gpu_collide_selftest COMMAND test_gpu_collide)
  set_tests_properties(gpu_collide_selftest PROPERTIES ENVIRONMENT SIPD_TEST_GPU_SELFTEST=1 TIMEOUT 120)
endif()
