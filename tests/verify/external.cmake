# Against an independent FE code: CalculiX (Debian calculix-ccx, installed by
# tools/setup-debian.sh) solves the held-out gmsh beam tests/data/meshes/ext_beam.msh
# (tools/meshes/ext_beam.geo; 1 x 0.1 x 0.1 m, 547 vertices, 1595 tets, clamped at x = 0, its own
# weight, E = 1 GPa so the deflection is 0.1% of the length) with linear C3D4 tets;
# sipd-run's quasi-static answer (newton and mixed-fem) must match every nodal displacement within 1% of the largest
# (tools/ccx-compare.py).  Skipped (77) without ccx or python3-h5py.
foreach(nu 0.3 0.49)
  add_test(NAME verify_external_ccx_nu${nu}
           COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tools/ccx-compare.py --sipd-run $<TARGET_FILE:sipd-run>
                   --mesh ${SIPD_TEST_DATA}/meshes/ext_beam.msh --out ${CMAKE_CURRENT_BINARY_DIR}/ccx_nu${nu}
                   --youngs 1.0e9 --poisson ${nu} --solve-tolerance 1.0e-6 --methods newton,mixed-fem --tol 0.01)
  set_tests_properties(verify_external_ccx_nu${nu} PROPERTIES LABELS external SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
