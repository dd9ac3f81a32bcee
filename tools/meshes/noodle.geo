// noodle: a thin cylinder of radius R along x from x = -L/2 to x = L/2 (centred at the
// origin, so a rotation about y keeps it in place), built by extruding a triangulated disk
// in NL layers (3 tets per prism), so the noodle bends evenly along x.
// Parameters (override with gmsh -setnumber): R, L, NC (points around the circle, one
// straight mesh edge between neighbours), NL (layers along x), HD (interior disk mesh size
// relative to R; the centre is always a mesh point, so NC = 6 gives 6 equal triangles).
If (!Exists(R)) R = 0.01; EndIf
If (!Exists(L)) L = 0.3; EndIf
If (!Exists(NC)) NC = 6; EndIf
If (!Exists(NL)) NL = 24; EndIf
If (!Exists(HD)) HD = 1.0; EndIf
Point(1) = {-L / 2, 0, 0, HD * R};
For i In {0 : NC - 1}
  Point(2 + i) = {-L / 2, R * Cos(2 * Pi * i / NC), R * Sin(2 * Pi * i / NC), HD * R};
EndFor
For i In {0 : NC - 1}
  Circle(1 + i) = {2 + i, 1, 2 + ((i + 1) % NC)};
EndFor
Curve Loop(1) = {1 : NC};
Plane Surface(1) = {1};
Transfinite Curve{1 : NC} = 2;       // one mesh edge per arc
Point{1} In Surface{1};              // the centre is a mesh vertex (symmetric cross-section)
out[] = Extrude {L, 0, 0} { Surface{1}; Layers{NL}; };
Mesh.Optimize = 0;   // keep the extruded layers as they are
Physical Volume("noodle", 1) = {out[1]};
