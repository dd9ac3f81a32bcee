// Held-out rod (tools/heldout-kinds.py): a clamp segment [-a/2, a/2] and the rod up to x = 1 m,
// n - 1 segments graded by a factor 1.03 (gmsh Progression), so the segments are not uniform.
SetFactory("Built-in");
If (!Exists(n)) n = 40; EndIf
a = 1.0 / n;
Point(1) = {-a/2, 0, 0}; Point(2) = {a/2, 0, 0}; Point(3) = {1.0, 0, 0};
Line(1) = {1, 2}; Line(2) = {2, 3};
Transfinite Curve{1} = 2; Transfinite Curve{2} = n Using Progression 1.03;
Physical Curve("rod") = {1, 2};
