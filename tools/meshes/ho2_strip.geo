// Second held-out strip (tools/heldout-kinds.py --strip-mesh ho2_strip.msh), made for the mid-edge
// bending after it was developed on ho_strip.geo's meshes: L = 1 m beyond the clamp line x = 0,
// width 1/4 m, in the x-z plane, clamp band [-c, 0], graded triangles (lc0 at the clamp, lc1 at the
// tip), gmsh's Delaunay algorithm instead of the default.
SetFactory("Built-in");
If (!Exists(lc0)) lc0 = 0.015; EndIf
If (!Exists(lc1)) lc1 = 0.035; EndIf
L = 1.0; W = 0.25; c = 0.05;
Mesh.Algorithm = 5;
Point(1) = {-c, 0, 0, lc0}; Point(2) = {0, 0, 0, lc0}; Point(3) = {L, 0, 0, lc1};
Point(4) = {L, 0, W, lc1}; Point(5) = {0, 0, W, lc0}; Point(6) = {-c, 0, W, lc0};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 5}; Line(5) = {5, 6}; Line(6) = {6, 1};
Line(7) = {2, 5};
Curve Loop(1) = {1, 7, 5, 6}; Plane Surface(1) = {1};
Curve Loop(2) = {2, 3, 4, -7}; Plane Surface(2) = {2};
Physical Surface("strip") = {1, 2};
