// bunny.geo — a bunny-like body of our own (issue 13 item 7, seed 002 Fig. 2: the same body as
// tets, as its surface and as springs): an ellipsoidal body, a head, two ears and a tail, united
// by OpenCASCADE; about 0.3 m long, resting on y = 0, facing +x.  Tets of about lc (0.03 m).
SetFactory("OpenCASCADE");
If (!Exists(lc)) lc = 0.03; EndIf
Sphere(1) = {0, 0.1, 0, 0.1};   Dilate {{0, 0.1, 0}, {1.3, 1.0, 0.9}} { Volume{1}; }
Sphere(2) = {0.13, 0.2, 0, 0.065};
Cylinder(3) = {0.13, 0.24, 0.025, -0.02, 0.12, 0.01, 0.018};
Cylinder(4) = {0.13, 0.24, -0.025, -0.02, 0.12, -0.01, 0.018};
Sphere(5) = {-0.13, 0.12, 0, 0.035};
BooleanUnion{ Volume{1}; Delete; }{ Volume{2, 3, 4, 5}; Delete; }
Mesh.CharacteristicLengthMax = lc;
Mesh.CharacteristicLengthMin = lc / 2;
Physical Volume("bunny") = {Volume{:}};
