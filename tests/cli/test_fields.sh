#!/usr/bin/env bash
# test_fields.sh SIPD_RUN SCENES_DIR SCRATCH CASE — output.fields in whole runs, read back with h5py
# and checked against what the fields must equal independently of how they are computed:
#   stretch    quasi-static bar pulled 0.1 %: the mid-bar von Mises stress equals E ε_xx (linear
#              elasticity), the lateral strain is −ν ε_xx, J = (1 + ε)(1 − ν ε)²; displacement = x − rest
#   rotation   a kinematic obstacle spinning about a tilted axis: J = 1, no stress, no strain (a rigid
#              rotation); the falling free body's velocity equals the finite differences of its
#              positions (backward Euler, one step per frame), the obstacle's too
#   contact    a cube resting on the ground (quasi-static): the contact forces add up to its weight ρVg
#   kinds      a cloth, a rod and a solid in one run: every kind's datasets, rest values at frame 0
#   resume     2 frames, then --resume to 4: the fields equal those of a straight 4-frame run, and the
#              XDMF has the attributes of every frame
# Exit 77 (skipped) without /usr/bin/python3's numpy and h5py (tools/setup-debian.sh installs them).
set -uo pipefail
bin=$1; scenes=$2; dir=$3; case=$4
py=/usr/bin/python3
$py -c "import h5py, numpy" 2>/dev/null || { echo "skipped: $py lacks h5py or numpy"; exit 77; }
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
M=$scenes/meshes
run() { "$bin" "$@" --quiet --device cpu || { echo "FAIL: sipd-run $* exited $?"; exit 1; }; }

case $case in
stretch)
  cat > s.cfg <<EOF
time     = { dt = 1.0; substeps = 1; frames = 1; quasistatic = true; };
solver   = { iterations = 20000; tolerance = 1.0e-9; chebyshev = true; };
gravity  = [0.0, 0.0, 0.0];
materials = ( { name = "rubber"; youngs = 1.0e6; poisson = 0.3; density = 1000.0; } );
bodies   = ( { mesh = "$M/beam"; material = "rubber";
               pin  = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; };
               move = { box_min = [0.99, -1.0, -1.0]; box_max = [1.01, 1.0, 1.0]; velocity = [0.001, 0.0, 0.0]; }; } );
output   = { file = "s.h5"; fields = ["von_mises", "displacement", "J", "strain", "energy_density"]; };
EOF
  run s.cfg
  $py - <<'EOF' || exit 1
import h5py, numpy as np
f = h5py.File("s.h5", "r")
E, nu = 1.0e6, 0.3
X, T, x = f["mesh/rest_positions"][:], f["mesh/tets"][:], f["frames/positions"][:]
assert f["convergence/status"][-1] == 0, "the solve did not converge"
F = f["frames/fields"]
assert sorted(F.keys()) == ["J", "displacement", "energy_density", "strain", "von_mises"], list(F.keys())
c = X[T].mean(axis=1)
mid = (c[:, 0] > 0.3) & (c[:, 0] < 0.7)   # away from the pinned ends' lateral constraint
vm, s = F["von_mises/tets"][-1, :, 0], F["strain/tets"][-1]
exx = s[mid, 0].mean()
ok = True
def check(what, got, want, tol):
    global ok
    good = abs(got - want) <= tol * abs(want)
    print("%-40s %.6g (expected %.6g, tolerance %g): %s" % (what, got, want, tol, "ok" if good else "FAIL"))
    ok &= good
check("mid-bar strain xx vs applied 0.001", exx, 1e-3, 0.05)
check("mid-bar von Mises vs E exx", vm[mid].mean(), E * exx, 0.01)
check("mid-bar lateral strain yy / xx vs -nu", s[mid, 1].mean() / exx, -nu, 0.02)
check("mid-bar lateral strain zz / xx vs -nu", s[mid, 2].mean() / exx, -nu, 0.02)
check("mid-bar J vs (1 + e)(1 - nu e)^2", F["J/tets"][-1, mid, 0].mean(), (1 + exx) * (1 - nu * exx) ** 2, 1e-5)
check("mid-bar energy density vs E exx^2 / 2", F["energy_density/tets"][-1, mid, 0].mean(), 0.5 * E * exx ** 2, 0.03)
d = F["displacement"][:]
err = np.abs(d - (x.astype(np.float64) - X)).max()
print("displacement vs positions - rest: %.3g (float32 round-off of both: <= 1e-6)" % err)
ok &= err <= 1e-6 and np.abs(d[0]).max() < 1e-12   # frame 0: the initial state (rest, to round-off)
exit(0 if ok else 1)
EOF
  ;;
rotation)
  cat > r.cfg <<EOF
time     = { dt = 0.05; substeps = 1; frames = 4; };
materials = ( { name = "soft"; youngs = 1.0e5; poisson = 0.4; density = 1000.0; } );
bodies   = ( { mesh = "$M/cube"; material = "soft"; obstacle = true; angular_velocity = [0.3, 2.0, -1.0]; },
             { mesh = "$M/cube"; material = "soft"; translate = [1.0, 0.5, 0.0]; velocity = [0.0, 0.0, 0.4]; } );
output   = { file = "r.h5"; fields = ["displacement", "velocity", "J", "von_mises", "strain", "energy_density"]; };
EOF
  run r.cfg
  $py - <<'EOF' || exit 1
import h5py, numpy as np
f = h5py.File("r.h5", "r")
b, T = f["mesh/body"][:], f["mesh/tets"][:]
ob = b[T[:, 0]] == 0
x, t = f["frames/positions"][:].astype(np.float64), f["frames/time"][:]
X = f["mesh/rest_positions"][:]
F = f["frames/fields"]
turn = np.abs(x[-1, b == 0] - X[b == 0]).max()
J, vm, s, psi = (F[n + "/tets"][-1, ob] for n in ("J", "von_mises", "strain", "energy_density"))
print("obstacle turned by up to %.3g m: |J - 1| %.3g, von Mises %.3g Pa, |strain| %.3g, energy density %.3g" %
      (turn, np.abs(J - 1).max(), vm.max(), np.abs(s).max(), np.abs(psi).max()))
ok = turn > 0.05 and np.abs(J - 1).max() < 1e-9 and vm.max() < 1e-6 and np.abs(s).max() < 1e-12 and np.abs(psi).max() < 1e-6
v = F["velocity"][:]
fd = (x[1:] - x[:-1]) / np.diff(t)[:, None, None]
err = np.abs(fd - v[1:]).max()
print("velocity vs finite differences of the positions: %.3g m/s (float32 positions / dt: ~%.3g); |v| up to %.3g" %
      (err, 6e-8 * np.abs(x).max() / 0.05, np.abs(v).max()))
ok &= err < 1e-5 * max(1.0, np.abs(v).max()) and np.abs(v).max() > 0.5
ok &= np.allclose(v[0, b == 1], [0.0, 0.0, 0.4]) and np.all(v[0, b == 0] == 0)   # frame 0: the initial velocities
exit(0 if ok else 1)
EOF
  ;;
contact)
  cat > c.cfg <<EOF
time     = { dt = 1.0; substeps = 1; frames = 1; quasistatic = true; };
solver   = { iterations = 20000; tolerance = 1.0e-8; chebyshev = true; };
materials = ( { name = "soft"; youngs = 1.0e5; poisson = 0.4; density = 1000.0; } );
bodies   = ( { mesh = "$M/cube"; material = "soft"; translate = [0.0, 0.005, 0.0]; } );
contact  = { dhat = 0.01; friction = 0.2; ground = { height = 0.0; }; };
output   = { file = "c.h5"; fields = ["contact_force"]; };
EOF
  run c.cfg
  $py - <<'EOF' || exit 1
import h5py, numpy as np
f = h5py.File("c.h5", "r")
X = f["mesh/rest_positions"][:]
ext = X.max(0) - X.min(0)
W = 1000.0 * ext[0] * ext[1] * ext[2] * 9.81
fc = f["frames/fields/contact_force"][:]
s = fc[-1].astype(np.float64).sum(axis=0)
n = int((np.abs(fc[-1]).sum(axis=1) > 0).sum())
print("contact forces add up to %s N on %d vertices; the weight is %.6g N; frame 0: %g" % (s, n, W, np.abs(fc[0]).max()))
ok = f["convergence/status"][-1] == 0 and abs(s[1] - W) < 1e-4 * W and abs(s[0]) + abs(s[2]) < 1e-4 * W and n > 0
exit(0 if ok and np.abs(fc[0]).max() == 0 else 1)
EOF
  ;;
kinds)
  cat > k.cfg <<EOF
time     = { dt = 0.01; substeps = 1; frames = 3; };
materials = ( { name = "soft"; youngs = 1.0e5; poisson = 0.3; density = 1000.0; } );
bodies   = ( { mesh = "$M/cube"; material = "soft"; },
             { generate = { shape = "cloth"; size = [0.4, 0.4]; cells = [4, 4]; }; material = "soft";
               translate = [1.0, 0.0, 0.0]; pin = { box_min = [0.9, -1.0, -1.0]; box_max = [1.01, 1.0, 1.0]; }; },
             { generate = { shape = "rod"; length = 0.5; segments = 5; }; material = "soft"; radius = 0.01;
               translate = [2.0, 0.0, 0.0]; pin = { box_min = [1.9, -1.0, -1.0]; box_max = [2.01, 1.0, 1.0]; }; } );
output   = { file = "k.h5"; fields = ["displacement", "velocity", "contact_force", "J", "von_mises", "energy_density",
                                      "strain"]; };
EOF
  run k.cfg
  $py - <<'EOF' || exit 1
import h5py, numpy as np
f = h5py.File("k.h5", "r")
F = f["frames/fields"]
ok = True
for name, k in (("J", 1), ("von_mises", 1), ("energy_density", 1), ("strain", 6)):
    for kind in ("tets", "triangles", "edges"):
        d = F[name][kind]
        n = f["mesh/" + kind].shape[0]
        rest = 1.0 if name == "J" else 0.0
        good = d.shape == (4, n, k) and np.abs(d[0] - rest).max() < 1e-6 and np.all(np.isfinite(d[:]))
        moved = np.abs(d[-1] - rest).max()
        print("%s/%s %s: frame 0 at rest %s, last frame differs by %.3g" % (name, kind, d.shape, good, moved))
        ok &= good and (moved > 0 or name == "J" and kind == "tets")
for name in ("displacement", "velocity", "contact_force"):
    ok &= F[name].shape == (4, f["mesh/body"].shape[0], 3)
ok &= F["displacement"].chunks == (1, f["mesh/body"].shape[0], 3) and F["J/tets"].compression == "gzip"
exit(0 if ok else 1)
EOF
  ;;
resume)
  cat > u.cfg <<EOF
time     = { dt = 0.02; substeps = 2; frames = 4; };
materials = ( { name = "soft"; youngs = 1.0e5; poisson = 0.4; density = 1000.0; } );
bodies   = ( { mesh = "$M/cube"; material = "soft"; translate = [0.0, 0.02, 0.0]; } );
contact  = { dhat = 0.01; friction = 0.3; ground = { height = 0.0; }; };
output   = { file = "u.h5"; fields = ["displacement", "contact_force", "von_mises"]; };
EOF
  sed 's/"u.h5"/"full.h5"/' u.cfg > full.cfg
  run full.cfg
  run u.cfg --frames 2
  run u.cfg --resume
  $py - <<'EOF' || exit 1
import h5py, numpy as np
a, b = h5py.File("u.h5", "r"), h5py.File("full.h5", "r")
ok = True
for n in ("displacement", "contact_force", "von_mises/tets"):
    x, y = a["frames/fields/" + n][:], b["frames/fields/" + n][:]
    good = x.shape == y.shape == (5,) + y.shape[1:] and np.allclose(x, y, rtol=1e-5, atol=1e-7 * np.abs(y).max())
    print("%s: resumed %s, straight %s: %s" % (n, x.shape, y.shape, "equal" if good else "DIFFERENT"))
    ok &= good
ok &= np.abs(b["frames/fields/contact_force"][-1]).max() > 0
xd = open("u.xdmf").read()
ok &= all(xd.count("/xdmf/fields/%s/%d<" % (n, i)) == 1 for n in ("displacement", "contact_force") for i in range(5))
ok &= all(xd.count("/xdmf/fields/von_mises/tets/%d<" % i) == 1 for i in range(5))
print("XDMF attributes of every frame:", ok)
exit(0 if ok else 1)
EOF
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
echo "fields $case: ok"
