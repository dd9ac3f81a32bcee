# The Python package python/sipdrun (issue 28): install, reader, USD / OBJ / VTU export, each read
# back independently (tests/cli/test_python.sh; skipped, 77, where /usr/bin/python3 lacks what a case
# needs: tools/setup-debian.sh installs it).  Each 1-3 s.
foreach(case install reader usd obj vtu)
  add_test(NAME python_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_python.sh $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/python_${case} ${case})
  set_tests_properties(python_${case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
