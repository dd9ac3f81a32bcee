// small_ball.geo: a ball of radius 1.5 cm (3 cm across) centred at the origin, tets of about 7 mm.
// Mesh it with:  gmsh small_ball.geo -3 -format msh22 -o small_ball.msh
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 0.015};
Mesh.MeshSizeMax = 0.007;
Physical Volume("ball") = {1};
