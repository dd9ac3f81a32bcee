# The CUDA emulation layer's own checks (tests/emu/emu_selftest.cpp, beside the layer): only in the emulation build
# (-DSIPD_CUDA_EMU=ON, make gpu-emu), label `gpu` so that make gpu-emu runs it.
if(SIPD_CUDA_EMU AND TARGET sipd_cuda)
  add_executable(emu_selftest ${SIPD_TESTS_DIR}/emu/emu_selftest.cpp)
  target_include_directories(emu_selftest PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
  target_link_libraries(emu_selftest PRIVATE sipd_cuda)
  add_test(NAME gpu_emu_selftest COMMAND emu_selftest)
  set_tests_properties(gpu_emu_selftest PROPERTIES LABELS gpu TIMEOUT 60)
endif()
