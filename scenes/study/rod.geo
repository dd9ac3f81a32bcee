// rod.geo: a straight 0.5 m rod along x from the origin, segments of about 2 cm.
// Mesh it with:  gmsh rod.geo -1 -format msh22 -o rod.msh
SetFactory("Built-in");
lc = 0.02;
Point(1) = {0, 0, 0, lc};
Point(2) = {0.5, 0, 0, lc};
Line(1) = {1, 2};
Physical Curve("rod") = {1};
