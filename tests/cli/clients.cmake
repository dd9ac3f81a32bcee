# The output in the real clients (issue 16): ParaView's three XDMF readers (pvbatch under
# xvfb-run) and meshio read a short run of scenes/twisted_beams.cfg with the right time steps,
# points, cells and bounds (tests/cli/test_clients.sh).  Label `clients`; skipped (77) without
# python3-paraview, xvfb, python3-meshio and python3-h5py (tools/setup-debian.sh installs them).
add_test(NAME clients_paraview_meshio
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_clients.sh $<TARGET_FILE:sipd-run>
                 ${CMAKE_SOURCE_DIR}/scenes/twisted_beams.cfg ${CMAKE_CURRENT_BINARY_DIR}/clients)
set_tests_properties(clients_paraview_meshio PROPERTIES LABELS clients SKIP_RETURN_CODE 77 TIMEOUT 400
                     RESOURCE_LOCK sipd_pvbatch)
# the same for one cloth (triangles) and one rod (edges) run: the XDMF grid of another kind
foreach(n curtain rope bunny_kinds)
  add_test(NAME clients_paraview_meshio_${n}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_clients.sh $<TARGET_FILE:sipd-run>
                   ${CMAKE_SOURCE_DIR}/scenes/${n}.cfg ${CMAKE_CURRENT_BINARY_DIR}/clients_${n})
  # one pvbatch at a time: two under xvfb-run at once aborted (SIGABRT) here
  set_tests_properties(clients_paraview_meshio_${n} PROPERTIES LABELS clients SKIP_RETURN_CODE 77 TIMEOUT 400
                       RESOURCE_LOCK sipd_pvbatch)
endforeach()
# output.fields in ParaView (three XDMF readers, the sipdrun PVD export) and meshio's time series
# (tests/cli/test_clients_fields.sh, issue 28; about 20 s, most of it pvbatch)
add_test(NAME clients_fields
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_clients_fields.sh $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/clients_fields)
set_tests_properties(clients_fields PROPERTIES LABELS clients SKIP_RETURN_CODE 77 TIMEOUT 400 RESOURCE_LOCK sipd_pvbatch)
