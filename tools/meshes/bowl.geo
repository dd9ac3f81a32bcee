// bowl: hemispherical bowl opening upward (+y is up), a solid shell between spheres of
// radii 0.25 and 0.27 m centred at the origin, lower half (y <= 0). The rim is at y = 0.
// One to two tets through the 2 cm wall; meant as a rigid obstacle (obstacle = true), so it
// only needs to be smooth, not accurate in bending.
SetFactory("OpenCASCADE");
Ri = 0.25; Ro = 0.27;
Sphere(1) = {0, 0, 0, Ro};
Sphere(2) = {0, 0, 0, Ri};
Box(3) = {-1, -1, -1, 2, 1, 2};          // the half space y < 0
shell() = BooleanDifference{ Volume{1}; Delete; }{ Volume{2}; Delete; };
bowl() = BooleanIntersection{ Volume{shell()}; Delete; }{ Volume{3}; Delete; };
If (!Exists(h)) h = 0.04; EndIf     // mesh size (m): ~3.7k tets, 8.8° between neighbouring facets
Mesh.MeshSizeMin = 0.7 * h;
Mesh.MeshSizeMax = h;
Mesh.MeshSizeFromCurvature = 0;
Mesh.Optimize = 1;
Physical Volume("bowl", 1) = {bowl()};
