// beam.geo: a box 0.5 m x 0.1 m x 0.1 m (x from 0 to 0.5), filled with tetrahedra about 5 cm across.
// Mesh it with:  gmsh beam.geo -3 -format msh22 -o beam.msh   (-3: a volume mesh, not just the surface)
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 0.5, 0.1, 0.1};
Mesh.MeshSizeMax = 0.05;
Physical Volume("beam") = {1};
