# Documentation, licence, version and install checks (tests/cli/test_docs.sh).  include()d by
# tests/CMakeLists.txt.  Each takes seconds; docs_readme_first_scene runs the README's first scene
# (about 3 s of CPU time on one thread, release build).
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
add_test(NAME docs_readme_first_run COMMAND bash ${SIPD_DOCS_SH} first_run ${CMAKE_SOURCE_DIR} $<TARGET_FILE:sipd-run>)
# (not in sanitizer builds: these two run sipd-run for seconds and check documents and install
# rules, not memory safety, which the cli_* tests cover under ASan)
if(NOT SIPD_SANITIZE)
  add_test(NAME docs_readme_first_scene COMMAND bash ${SIPD_DOCS_SH} first_scene ${CMAKE_SOURCE_DIR} $<TARGET_FILE:sipd-run>)
endif()
# the manual page lists exactly the options of --help, and renders without warnings
add_test(NAME docs_man_help COMMAND bash ${SIPD_DOCS_SH} man_help ${CMAKE_SOURCE_DIR} $<TARGET_FILE:sipd-run>)
# CMake's project VERSION = sipd-run --version = the top CHANGELOG entry = CITATION.cff = the man page
add_test(NAME docs_version COMMAND bash ${SIPD_DOCS_SH} version ${CMAKE_SOURCE_DIR} $<TARGET_FILE:sipd-run>)
# cmake --install of this build tree into a temporary prefix: binary, man page, example scenes
if(NOT SIPD_SANITIZE)
  add_test(NAME docs_install COMMAND bash ${SIPD_DOCS_SH} install ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
endif()
set_tests_properties(docs_man_help PROPERTIES SKIP_RETURN_CODE 77)
# docs/architecture.md "Layers": no include circle among the modules of src/ and its folders
# (tools/check-includes.py; scene -> method -> backend -> model -> scene ended with issue 30
# item 4, driver <-> solvers/common after it: BK, ENERGY_NOISE and the coarse level's set-up are
# declared in driver.h); no circle is allowed.  The selftest shows that the check finds a circle
find_program(SIPD_PYTHON3 python3)
if(SIPD_PYTHON3)
  add_test(NAME docs_include_layers COMMAND ${SIPD_PYTHON3} ${CMAKE_SOURCE_DIR}/tools/check-includes.py
           ${CMAKE_SOURCE_DIR})
  add_test(NAME docs_include_layers_selftest COMMAND ${SIPD_PYTHON3} ${CMAKE_SOURCE_DIR}/tools/check-includes.py --selftest)
endif()
