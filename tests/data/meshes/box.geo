// Box 1 x 0.2 x 0.2 (volume 0.04, surface area 0.82) for the mesh loader tests.
// Meshed by: gmsh box.geo -3 -format msh41 -o box_v41_ascii.msh, then converted (see README.md)
lc = 0.1;
Point(1) = {0, 0, 0, lc};   Point(2) = {1, 0, 0, lc};
Point(3) = {1, 0.2, 0, lc}; Point(4) = {0, 0.2, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
out[] = Extrude {0, 0, 0.2} { Surface{1}; };
Physical Surface("boundary") = {1, out[0], out[2], out[3], out[4], out[5]};
Physical Volume("solid") = {out[1]};
Mesh.RandomSeed = 1;
