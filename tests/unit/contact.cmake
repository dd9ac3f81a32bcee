# Contact and friction virtual elements (src/physics/contact.h, docs/design.md §3.6): verification
# tests, double precision.  include()d by tests/CMakeLists.txt.
add_executable(test_contact ${CMAKE_CURRENT_LIST_DIR}/test_contact.c)
target_link_libraries(test_contact PRIVATE sipd_core)
foreach(case plane friction descent pair anchor)
  add_test(NAME contact_${case} COMMAND test_contact ${case})
  set_tests_properties(contact_${case} PROPERTIES TIMEOUT 60)
endforeach()
