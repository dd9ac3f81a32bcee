// Plate with a central hole for tests/verify/test_verify.c (verify_plate_hole).
// 10 cm x 10 cm plate, centred at the origin in x-y, hole radius 1 cm (d/W = 0.2),
// thickness 4 mm in z (two structured layers of tets through the thickness, z in [0, 0.004]).
// Unstructured triangles in the plane, refined near the hole (size field), extruded.
// Meshed by: gmsh plate_hole.geo -3 -format msh41 -o plate_hole.msh   (see README.md)
W = 0.1;  r = 0.01;  t = 0.004;
lc_far = 0.008;  lc_hole = 0.0015;
Point(1) = {-W/2, -W/2, 0, lc_far};  Point(2) = { W/2, -W/2, 0, lc_far};
Point(3) = { W/2,  W/2, 0, lc_far};  Point(4) = {-W/2,  W/2, 0, lc_far};
Point(5) = {0, 0, 0, lc_hole};
Point(6) = { r, 0, 0, lc_hole};  Point(7) = {0,  r, 0, lc_hole};
Point(8) = {-r, 0, 0, lc_hole};  Point(9) = {0, -r, 0, lc_hole};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Circle(5) = {6, 5, 7}; Circle(6) = {7, 5, 8}; Circle(7) = {8, 5, 9}; Circle(8) = {9, 5, 6};
Curve Loop(1) = {1, 2, 3, 4};
Curve Loop(2) = {5, 6, 7, 8};
Plane Surface(1) = {1, 2};
// element size: lc_hole at the hole, growing linearly to lc_far 3 cm away from it
Field[1] = Distance;  Field[1].CurvesList = {5, 6, 7, 8};  Field[1].NumPointsPerCurve = 100;
Field[2] = Threshold; Field[2].InField = 1;
Field[2].SizeMin = lc_hole;  Field[2].SizeMax = lc_far;
Field[2].DistMin = 0.001;    Field[2].DistMax = 0.03;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
out[] = Extrude {0, 0, t} { Surface{1}; Layers{2}; };
Physical Volume("plate") = {out[1]};
Mesh.RandomSeed = 1;
