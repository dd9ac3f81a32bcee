# Shared physics headers (src/physics/*.h): verification tests and the nvcc compile check.
#
# This file is include()d by tests/CMakeLists.txt.  It is also run as a script by the
# physics_nvcc_coverage test:
#   cmake -DSIPD_PHYSICS_COVERAGE=ON -DSRC=<src/physics> -DCU=<tests/unit/nvcc_physics.cu> -P physics.cmake
# which fails when a physics header is not included by nvcc_physics.cu, or one of its SIPD_HD
# functions is not called there (so the nvcc check would not instantiate it for the device).
if(CMAKE_SCRIPT_MODE_FILE AND SIPD_PHYSICS_COVERAGE)
  file(READ "${CU}" cu_text)
  file(GLOB headers "${SRC}/*.h")
  set(missing "")
  set(nfun 0)
  foreach(h ${headers})
    get_filename_component(hname "${h}" NAME)
    string(FIND "${cu_text}" "#include \"physics/${hname}\"" pos)
    if(pos EQUAL -1)
      list(APPEND missing "header physics/${hname} not included")
    endif()
    file(READ "${h}" htext)
    string(REGEX MATCHALL "SIPD_HD[ \t]+[A-Za-z_0-9]+[ \t*]+[A-Za-z_0-9]+[ \t]*\\(" decls "${htext}")
    foreach(d ${decls})
      string(REGEX REPLACE ".*[ \t*]([A-Za-z_0-9]+)[ \t]*\\($" "\\1" fn "${d}")
      math(EXPR nfun "${nfun} + 1")
      if(NOT cu_text MATCHES "[^A-Za-z_0-9]${fn}[ \t]*\\(")
        list(APPEND missing "${hname}: ${fn}() not called")
      endif()
    endforeach()
  endforeach()
  if(nfun LESS 40)
    message(FATAL_ERROR "physics_nvcc_coverage: found only ${nfun} SIPD_HD functions in ${SRC}: parser broken?")
  endif()
  if(missing)
    string(REPLACE ";" "\n  " missing "${missing}")
    message(FATAL_ERROR "tests/unit/nvcc_physics.cu does not cover:\n  ${missing}")
  endif()
  message(STATUS "nvcc_physics.cu covers all ${nfun} SIPD_HD functions of ${SRC}")
  return()
endif()

# ---- CPU verification (double precision) -------------------------------------------------
add_executable(test_physics ${CMAKE_CURRENT_LIST_DIR}/test_physics.c)
target_link_libraries(test_physics PRIVATE sipd_core)
foreach(case pairwise fd rest lame kplus none descent majorize inertia)
  add_test(NAME physics_${case} COMMAND test_physics ${case})
  set_tests_properties(physics_${case} PROPERTIES TIMEOUT 60)
endforeach()

# ---- nvcc: the headers compile for the device, float and double ---------------------------
add_test(NAME physics_nvcc_coverage
         COMMAND ${CMAKE_COMMAND} -DSIPD_PHYSICS_COVERAGE=ON -DSRC=${CMAKE_SOURCE_DIR}/src/physics
                 -DCU=${CMAKE_CURRENT_LIST_DIR}/nvcc_physics.cu -P ${CMAKE_CURRENT_LIST_FILE})
if(SIPD_HAVE_NVCC)
  # -Werror all-warnings turns every nvcc diagnostic into an error; the host side of the .cu is
  # compiled by the C++ host compiler with the project's warning set, also as errors.
  set(SIPD_NVCC_CHECK_FLAGS -arch=sm_90 -Werror all-warnings
      -Xcompiler=-Wall,-Wextra,-Wno-unused-parameter,-Werror -I${CMAKE_SOURCE_DIR}/src)
  add_test(NAME physics_nvcc_compile
           COMMAND ${CMAKE_CUDA_COMPILER} ${SIPD_NVCC_CHECK_FLAGS} -DSIPD_REAL_FLOAT
                   -c ${CMAKE_CURRENT_LIST_DIR}/nvcc_physics.cu
                   -o ${CMAKE_CURRENT_BINARY_DIR}/nvcc_physics_float.o)
  add_test(NAME physics_nvcc_compile_double
           COMMAND ${CMAKE_CUDA_COMPILER} ${SIPD_NVCC_CHECK_FLAGS}
                   -c ${CMAKE_CURRENT_LIST_DIR}/nvcc_physics.cu
                   -o ${CMAKE_CURRENT_BINARY_DIR}/nvcc_physics_double.o)
  # label nvcc: compile checks, left out of `make asan` (nothing of them runs under the sanitizers)
  set_tests_properties(physics_nvcc_compile physics_nvcc_compile_double PROPERTIES TIMEOUT 120 LABELS nvcc)
endif()
