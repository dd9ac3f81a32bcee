# The float32 CPU backend (src/backend_cpu32.c, --precision float32; tests/unit/test_cpu32.c)
# against the float64 CPU backend: scenes (solids, ground contact with friction and contact.ccd,
# rods, springs, cloth, the material models), every Jacobi-family method and sweep, and what it
# refuses.  registry.c (no CUDA row) for registry_choose_precision.
add_executable(test_cpu32 ${CMAKE_CURRENT_LIST_DIR}/test_cpu32.c ${CMAKE_SOURCE_DIR}/src/registry.c)
target_link_libraries(test_cpu32 PRIVATE sipd_core)
foreach(n cantilever drop tilted_block rope spring_beam curtain stretch_materials)
  add_test(NAME cpu32_scene_${n} COMMAND test_cpu32 scene ${CMAKE_SOURCE_DIR}/scenes/${n}.cfg)
endforeach()
add_test(NAME cpu32_methods COMMAND test_cpu32 methods ${CMAKE_SOURCE_DIR}/scenes/cantilever.cfg)
# sipd's sweeps and vbd with ground contact, friction and ccd (Gauss-Seidel with the ground's ccd)
add_test(NAME cpu32_methods_contact COMMAND test_cpu32 methods ${SIPD_TEST_DATA}/scenes/cpu32_slide.cfg sipd-vbd)
add_test(NAME cpu32_refuse COMMAND test_cpu32 refuse ${CMAKE_SOURCE_DIR}/scenes/cantilever.cfg
                                   ${CMAKE_SOURCE_DIR}/scenes/ball_collision.cfg)
# contact pairs (two balls colliding; discrete detection: contact.ccd with pairs is refused)
add_test(NAME cpu32_scene_pairs COMMAND test_cpu32 scene ${SIPD_TEST_DATA}/scenes/cpu32_pairs.cfg 8)
# the same with vbd (the serial Gauss-Seidel update of pair vertices) and pair friction (5-7 s)
add_test(NAME cpu32_scene_pairs_vbd COMMAND test_cpu32 scene ${SIPD_TEST_DATA}/scenes/cpu32_pairs_vbd.cfg 7)
# ground contact, sliding friction and contact.ccd from the first step
add_test(NAME cpu32_scene_slide COMMAND test_cpu32 scene ${SIPD_TEST_DATA}/scenes/cpu32_slide.cfg 6)
# every element kind in one scene (the conformance fixture): tets, springs, rods, cloth, hinge and
# mid-edge shells
add_test(NAME cpu32_scene_every_kind COMMAND test_cpu32 scene ${SIPD_TEST_DATA}/conformance/every_kind.cfg)
# newton and mixed-fem over every kind: assemble of all terms and of the non-stretch ones (rod
# bending, hinges, mid-edge bending with their gradient)
add_test(NAME cpu32_methods_every_kind
         COMMAND test_cpu32 methods ${SIPD_TEST_DATA}/conformance/every_kind.cfg assembled)
