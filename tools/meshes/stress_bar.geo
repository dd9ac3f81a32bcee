// stress_bar: a 0.3 x 0.1 x 0.1 m bar centred at the origin, long axis x (unstructured tets),
// the body of the SIPD paper's stress tests (scenes/stress_*.cfg): flattened, stretched and
// randomised starts that must recover the rest shape.  H = mesh size (m):
// 0.04 gives 356 tets (stress_bar.msh, the tests), 0.025 1099 (stress_bar_fine.msh).
SetFactory("OpenCASCADE");
DefineConstant[ H = 0.04 ];
Box(1) = {-0.15, -0.05, -0.05, 0.3, 0.1, 0.1};
Mesh.MeshSizeMin = H;
Mesh.MeshSizeMax = H;
Mesh.Optimize = 1;
Physical Volume("bar", 1) = {1};
