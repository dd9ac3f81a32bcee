// cloth.geo: a 0.5 m x 0.5 m square in the x-z plane (y = 0, corner at the origin), unstructured
// triangles of about 2.5 cm.  Mesh it with:  gmsh cloth.geo -2 -format msh22 -o cloth.msh
SetFactory("Built-in");
lc = 0.025;
Point(1) = {0, 0, 0, lc};
Point(2) = {0.5, 0, 0, lc};
Point(3) = {0.5, 0, 0.5, lc};
Point(4) = {0, 0, 0.5, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Surface("cloth") = {1};
