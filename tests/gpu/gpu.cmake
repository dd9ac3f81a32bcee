# CUDA backend tests (tests/gpu/test_gpu.c), label `gpu`: registered only when the CUDA backend is
# built (target sipd_cuda: nvcc found and not a sanitizer build).  Each test exits 77 when no
# CUDA device is usable, which CTest reports as skipped ("Not Run"), so CPU-only machines pass.
# Run them alone with `ctest -L gpu --output-on-failure` (tools/gpu-check.sh does).
if(TARGET sipd_cuda)
  # registry.c with the CUDA row (src/registry.h): the scene case asks it what the backend runs
  add_executable(test_gpu ${CMAKE_CURRENT_LIST_DIR}/test_gpu.c ${CMAKE_SOURCE_DIR}/src/registry.c)
  target_compile_definitions(test_gpu PRIVATE SIPD_HAVE_CUDA=1)
  target_link_libraries(test_gpu PRIVATE sipd_cuda sipd_core)
  set_target_properties(test_gpu PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  set(sipd_gpu_tests "")
  # every example scene: one the CUDA backend does not support (the registry's reason: mixed-fem,
  # contact with a Gauss-Seidel sweep) is checked to be refused, and passes (not 77: make gpu-emu
  # fails a skipped test); 77 only without a CUDA device
  # (and the scenes kept out of the examples, scenes/unsolved/: hair is the rod-rod contact case)
  file(GLOB sipd_gpu_scenes CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/scenes/*.cfg ${CMAKE_SOURCE_DIR}/scenes/unsolved/*.cfg)
  # (not the hidden copies tools/shipped-scenes.py and defaults-study.py write while they run)
  list(FILTER sipd_gpu_scenes EXCLUDE REGEX "/\\.[^/]*$")
  foreach(f ${sipd_gpu_scenes})
    get_filename_component(n ${f} NAME_WE)
    if(f MATCHES "/unsolved/")
      set(n unsolved_${n})
    endif()
    add_test(NAME gpu_scene_${n} COMMAND test_gpu scene ${f})
    list(APPEND sipd_gpu_tests gpu_scene_${n})
  endforeach()
  foreach(case energy big methods splits fused materials)
    add_test(NAME gpu_${case} COMMAND test_gpu ${case})
    list(APPEND sipd_gpu_tests gpu_${case})
  endforeach()
  # the fused Jacobi direction on a gmsh mesh stretched 3x (test_gpu.c test_fused_scene)
  add_test(NAME gpu_fused_bar COMMAND test_gpu fused ${CMAKE_SOURCE_DIR}/scenes/stress_stretch.cfg)
  list(APPEND sipd_gpu_tests gpu_fused_bar)
  # element kinds (springs, rods) through every method the CUDA backend runs
  foreach(n rope spring_beam curtain)
    add_test(NAME gpu_kinds_${n} COMMAND test_gpu kinds ${CMAKE_SOURCE_DIR}/scenes/${n}.cfg)
    list(APPEND sipd_gpu_tests gpu_kinds_${n})
  endforeach()
  # every element kind of SIPD_KINDS in one scene (the conformance test's fixture,
  # tests/unit/test_conformance.c): a new kind's body there runs here too, CPU against CUDA
  add_test(NAME gpu_kinds_every_kind COMMAND test_gpu kinds ${SIPD_TEST_DATA}/conformance/every_kind.cfg)
  list(APPEND sipd_gpu_tests gpu_kinds_every_kind)
  # the curtain (cloth) with each of the other membrane models (physics/tri.h's out-of-line forms)
  foreach(model neohookean arap corotational stvk)
    add_test(NAME gpu_kinds_curtain_${model} COMMAND test_gpu kinds ${CMAKE_SOURCE_DIR}/scenes/curtain.cfg ${model})
    list(APPEND sipd_gpu_tests gpu_kinds_curtain_${model})
  endforeach()
  # the curtain with mid-edge bending (bodies[].bending = "midedge", physics/midedge.h: 12 corners;
  # gpu_kinds_curtain runs the default dihedral hinges)
  add_test(NAME gpu_kinds_curtain_midedge COMMAND test_gpu kinds ${CMAKE_SOURCE_DIR}/scenes/curtain.cfg midedge)
  list(APPEND sipd_gpu_tests gpu_kinds_curtain_midedge)
  # the Gauss-Seidel kernels of the thin bodies with bending (kernels/backend_cuda.cu k_gs_color_kinds,
  # sipd_cuda_gs_class): the curtain's triangles + hinges (6), + mid-edge bending (7), the rope's edges
  # + rod bending (8), each against the generic kernels (bit for bit in the emulation build)
  add_test(NAME gpu_gs_kernel_curtain COMMAND test_gpu gs_kernel ${CMAKE_SOURCE_DIR}/scenes/curtain.cfg 6)
  add_test(NAME gpu_gs_kernel_curtain_midedge COMMAND test_gpu gs_kernel ${CMAKE_SOURCE_DIR}/scenes/curtain.cfg 7 midedge)
  add_test(NAME gpu_gs_kernel_rope COMMAND test_gpu gs_kernel ${CMAKE_SOURCE_DIR}/scenes/rope.cfg 8)
  list(APPEND sipd_gpu_tests gpu_gs_kernel_curtain gpu_gs_kernel_curtain_midedge gpu_gs_kernel_rope)
  # ... and the tet classes (1 stable neo-Hookean, 4 neo-Hookean, 5 StVK) against the staged sweep
  # (k_gss_*, which serves the other models: SIPD_CUDA_GS_GENERIC=1)
  add_test(NAME gpu_gs_kernel_cantilever COMMAND test_gpu gs_kernel ${CMAKE_SOURCE_DIR}/scenes/cantilever.cfg 1)
  add_test(NAME gpu_gs_kernel_cantilever_nh COMMAND test_gpu gs_kernel ${CMAKE_SOURCE_DIR}/scenes/cantilever.cfg 4 neohookean)
  add_test(NAME gpu_gs_kernel_cantilever_stvk COMMAND test_gpu gs_kernel ${CMAKE_SOURCE_DIR}/scenes/cantilever.cfg 5 stvk)
  list(APPEND sipd_gpu_tests gpu_gs_kernel_cantilever gpu_gs_kernel_cantilever_nh gpu_gs_kernel_cantilever_stvk)
  # a tet group of mixed material models (arap, corotational, neo-Hookean; stvk, corotational, stable
  # neo-Hookean): SIPD's element pass one kernel per model (backend_cuda.cu element_pass) under every
  # split, against the CPU, and the element launches per iteration counted
  add_test(NAME gpu_mixed_models COMMAND test_gpu mixed_models ${SIPD_TEST_DATA}/gpu/mixed_models.cfg)
  list(APPEND sipd_gpu_tests gpu_mixed_models)
  # thin bodies: a cloth and a rod with contact thickness on the ground and on each other
  add_test(NAME gpu_thin_ground COMMAND test_gpu scene ${SIPD_TEST_DATA}/gpu/thin_ground.cfg)
  list(APPEND sipd_gpu_tests gpu_thin_ground)
  # the same with the automatic contact stiffness: bodies of different k (per-vertex ground k, per-pair k)
  add_test(NAME gpu_thin_auto_k COMMAND test_gpu scene ${SIPD_TEST_DATA}/gpu/thin_auto_k.cfg)
  list(APPEND sipd_gpu_tests gpu_thin_auto_k)
  # output.fields "contact_force": the backend op against the CPU's (ground, friction, pairs)
  add_test(NAME gpu_contact_force COMMAND test_gpu contact_force ${SIPD_TEST_DATA}/gpu/contact_force.cfg)
  list(APPEND sipd_gpu_tests gpu_contact_force)
  # static friction that sticks (issue 27): the slope below (20 deg) and above (35 deg) the friction angle
  add_test(NAME gpu_slope_20 COMMAND test_gpu slope ${CMAKE_SOURCE_DIR}/scenes/study/slope.cfg)
  add_test(NAME gpu_slope_35 COMMAND test_gpu slope ${SIPD_TEST_DATA}/gpu/slope35.cfg)
  list(APPEND sipd_gpu_tests gpu_slope_20 gpu_slope_35)
  # the profile op's launch / sync counters and phase times (backend.h sipd_profile), on a box and
  # on the thin-bodies scene (contact pairs: broad and narrow phases)
  add_test(NAME gpu_profile COMMAND test_gpu profile ${SIPD_TEST_DATA}/gpu/thin_ground.cfg)
  list(APPEND sipd_gpu_tests gpu_profile)
  # contact pairs detected on the host (collide.c, float64) instead of the device
  add_test(NAME gpu_scene_ball_collision_host_detect COMMAND test_gpu scene ${CMAKE_SOURCE_DIR}/scenes/ball_collision.cfg)
  set_tests_properties(gpu_scene_ball_collision_host_detect PROPERTIES ENVIRONMENT SIPD_CUDA_HOST_DETECT=1)
  list(APPEND sipd_gpu_tests gpu_scene_ball_collision_host_detect)
  set_tests_properties(${sipd_gpu_tests} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
  # one GPU: keep the GPU tests from running concurrently with each other
  set_tests_properties(${sipd_gpu_tests} PROPERTIES RESOURCE_LOCK "${SIPD_GPU_LOCK}")
  # the same checks with the CPU backend standing in (no device; label-free, so make test runs it):
  # the CPU backend's phase times and the harness (tools/gpu-check.sh --selftest does the same)
  add_test(NAME gpu_profile_selftest COMMAND test_gpu profile ${SIPD_TEST_DATA}/gpu/thin_ground.cfg)
  set_tests_properties(gpu_profile_selftest PROPERTIES ENVIRONMENT SIPD_TEST_GPU_SELFTEST=1 TIMEOUT 120)
endif()
