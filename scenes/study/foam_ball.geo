// foam_ball.geo: a ball of radius 5 cm (0.1 m across) centred at the origin, tets of about 2 cm.
// Mesh it with:  gmsh foam_ball.geo -3 -format msh22 -o foam_ball.msh
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 0.05};
Mesh.MeshSizeMax = 0.02;
Physical Volume("ball") = {1};
