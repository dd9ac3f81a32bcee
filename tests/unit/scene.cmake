# Scene loader tests (src/scene.c). Fixtures: tests/data/scenes; each bad/*.cfg fixture states
# on its first line the line, key and message its error must carry.
add_executable(test_scene ${CMAKE_CURRENT_LIST_DIR}/test_scene.c)
target_link_libraries(test_scene PRIVATE sipd_core)

set(SIPD_SCENES ${SIPD_TEST_DATA}/scenes)
foreach(t full minimal roundtrip accepted missing_file models)
  add_test(NAME scene_${t} COMMAND test_scene ${t} ${SIPD_SCENES})
endforeach()
add_test(NAME scene_names COMMAND test_scene names)

file(GLOB SIPD_BAD_SCENES CONFIGURE_DEPENDS ${SIPD_SCENES}/bad/*.cfg)
foreach(f ${SIPD_BAD_SCENES})
  get_filename_component(n ${f} NAME_WE)
  add_test(NAME scene_bad_${n} COMMAND test_scene bad ${f})
endforeach()
