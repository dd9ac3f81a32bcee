# Every element kind of SIPD_KINDS (src/kinds/kind.h) through the same checks
# (tests/unit/test_conformance.c) on the scene that has every kind: finite-difference gradient
# and Hessian, the corner pass against the element pass, PSD blocks and majorisers, rigid-motion
# invariance.  A new kind adds a body to every_kind.cfg; `coverage` fails until it does.
add_executable(test_conformance ${CMAKE_CURRENT_LIST_DIR}/test_conformance.c)
target_link_libraries(test_conformance PRIVATE sipd_core)
foreach(case coverage rest gradient corner psd rigid)
  add_test(NAME conformance_${case} COMMAND test_conformance ${case}
           ${SIPD_TEST_DATA}/conformance/every_kind.cfg)
endforeach()
