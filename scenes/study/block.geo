// block.geo: a 0.3 m cube (corner at the origin), tets of about 7.5 cm.
// Mesh it with:  gmsh block.geo -3 -format msh22 -o block.msh
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 0.3, 0.3, 0.3};
Mesh.MeshSizeMax = 0.075;
Physical Volume("block") = {1};
