// ball: solid sphere of radius 0.1 m centred at the origin (unstructured tets).
// Mesh size 0.025 m gives ~1.5k tets: quick on the CPU, round enough to roll and bounce.
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 0.1};
Mesh.MeshSizeMin = 0.02;
Mesh.MeshSizeMax = 0.025;
Mesh.Optimize = 1;
// Only the tets are written (the simulator extracts the surface from them).
Physical Volume("ball", 1) = {1};
