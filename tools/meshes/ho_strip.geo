// Held-out strip (tools/heldout-kinds.py): L = 1 m beyond the clamp line x = 0, width 1/6 m, in the
// x-z plane, with a clamp band [-c, 0]; unstructured triangles of about lc (default 0.02 m).
SetFactory("Built-in");
If (!Exists(lc)) lc = 0.02; EndIf
L = 1.0; W = 1/6; c = 0.04;
Point(1) = {-c, 0, 0, lc}; Point(2) = {0, 0, 0, lc}; Point(3) = {L, 0, 0, lc};
Point(4) = {L, 0, W, lc}; Point(5) = {0, 0, W, lc}; Point(6) = {-c, 0, W, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 5}; Line(5) = {5, 6}; Line(6) = {6, 1};
Line(7) = {2, 5};
Curve Loop(1) = {1, 7, 5, 6}; Plane Surface(1) = {1};
Curve Loop(2) = {2, 3, 4, -7}; Plane Surface(2) = {2};
Physical Surface("strip") = {1, 2};
