// A rod: a 0.3 m polyline along x then bending into y (two straight pieces), segments of
// about 0.03 m; no physical groups (the end points are saved too and ignored by the loader).
SetFactory("Built-in");
lc = 0.03;
Point(1) = {0, 0, 0, lc};
Point(2) = {0.2, 0, 0, lc};
Point(3) = {0.2, 0.1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
