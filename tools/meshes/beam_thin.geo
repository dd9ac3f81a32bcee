// beam_thin: a thin beam 0.6 x 0.04 x 0.04 m, from x = 0 to x = L along x, cross-section
// [0, W] x [0, W] in (y, z). A structured N x N-point cross-section (triangles in an
// alternating pattern, so twisting either way is alike) extruded in NL layers (3 tets per prism).
// Parameters (gmsh -setnumber): L, W, N, NL.
If (!Exists(L))  L  = 0.6;  EndIf
If (!Exists(W))  W  = 0.04; EndIf
If (!Exists(N))  N  = 4;    EndIf
If (!Exists(NL)) NL = 40;   EndIf
Point(1) = {0, 0, 0};
Point(2) = {0, W, 0};
Point(3) = {0, W, W};
Point(4) = {0, 0, W};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1 : 4} = N;
Transfinite Surface{1} = {1, 2, 3, 4} Alternate;
out[] = Extrude {L, 0, 0} { Surface{1}; Layers{NL}; };
Mesh.Optimize = 0;
Physical Volume("beam_thin", 1) = {out[1]};
