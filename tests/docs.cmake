# Documentation, licence, version and install checks (tests/test_docs.sh).  include()d by
# tests/CMakeLists.txt.  Each takes seconds.
add_executable(scene_keys ${CMAKE_CURRENT_LIST_DIR}/scene_keys.c)
target_link_libraries(scene_keys PRIVATE sipd_core)

set(SIPD_DOCS_SH ${CMAKE_CURRENT_LIST_DIR}/test_docs.sh)
# every key the parser accepts is in docs/scene-reference.md, and every key row there is one
add_test(NAME docs_scene_keys COMMAND bash ${SIPD_DOCS_SH} keys ${CMAKE_SOURCE_DIR} $<TARGET_FILE:scene_keys>)
# the check itself can fail: with one key's mentions removed from a copy of the page it must
# report exactly that key
add_test(NAME docs_scene_keys_selftest
         COMMAND bash ${SIPD_DOCS_SH} keys_selftest ${CMAKE_SOURCE_DIR} $<TARGET_FILE:scene_keys>)
# the README's "First run" and "Your first scene" as written (scene, mesh, commands, Python, output)
