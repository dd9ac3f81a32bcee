// Held-out cloth (tools/heldout-kinds.py): a 0.5 m x 0.4 m sheet in the x-z plane (y = 0) with a
// round hole of radius 0.08 m off centre, unstructured triangles of about 0.03 m (Frontal-Delaunay).
// Written for the held-out runs of issue 13, never used while developing the shell code.
SetFactory("OpenCASCADE");
If (!Exists(lc)) lc = 0.03; EndIf
Rectangle(1) = {0, 0, 0, 0.5, 0.4};
Disk(2) = {0.3, 0.22, 0, 0.08};
BooleanDifference{ Surface{1}; Delete; }{ Surface{2}; Delete; }
Rotate {{1, 0, 0}, {0, 0, 0}, Pi/2} { Surface{:}; }
Mesh.CharacteristicLengthMax = lc;
Mesh.Algorithm = 6;
Physical Surface("cloth") = {Surface{:}};
