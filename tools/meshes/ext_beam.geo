// ext_beam: the held-out beam of the external-FE check (tools/ccx-compare.py, test
// verify_external_ccx): 1 m x 0.1 m x 0.1 m along x, clamped at x = 0; unstructured tets
// (Frontal-Delaunay), so no structured-mesh symmetry helps either code.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1.0, 0.1, 0.1};
Mesh.MeshSizeMin = 0.03;
Mesh.MeshSizeMax = 0.035;
Mesh.Algorithm3D = 1;
Mesh.Optimize = 1;
Physical Volume("ext_beam", 1) = {1};
