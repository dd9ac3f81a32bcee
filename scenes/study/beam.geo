// beam.geo: a 1 m x 0.1 m x 0.1 m beam along x (corner at the origin), tets of about 5 cm.
// Mesh it with:  gmsh beam.geo -3 -format msh22 -o beam.msh
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1.0, 0.1, 0.1};
Mesh.MeshSizeMax = 0.05;
Physical Volume("beam") = {1};
