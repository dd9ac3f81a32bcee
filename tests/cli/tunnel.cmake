# Issue 27's "no tunnelling, ever" (contact.ccd, tests/cli/test_tunnel.sh): the ball thrown at the
# pinned cloth, the rods crossing at speed and a cloth strip folding onto itself, 10 iterations per step, checked frame by frame with
# and without the filter (the check must fail without it).  Skipped (77) without /usr/bin/python3's
# numpy and h5py.  A few seconds each.
foreach(case throw rods fold)
  add_test(NAME tunnel_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_tunnel.sh $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/tunnel_${case} ${case})
  set_tests_properties(tunnel_${case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS contact)
endforeach()
