// A 0.4 m x 0.2 m cloth rectangle in the x-z plane (y = 0), unstructured triangles of about
// 0.05 m; no physical groups, so gmsh saves every element: the boundary lines and corner
// points too (the loader must validate and ignore them: the triangles are the body).
SetFactory("Built-in");
lc = 0.05;
Point(1) = {0, 0, 0, lc};
Point(2) = {0.4, 0, 0, lc};
Point(3) = {0.4, 0, 0.2, lc};
Point(4) = {0, 0, 0.2, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
