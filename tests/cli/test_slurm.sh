#!/usr/bin/env bash
# test_slurm.sh CASE SIPD_RUN SOURCE_DIR — the SLURM tooling in tools/slurm/.
#   sweep    sweep.py expands a parameter grid; every generated scene passes `sipd-run --dry-run`
#            with the swept values, the rewritten mesh paths and the per-scene output; params.tsv
#            and list.txt match; bad keys and values are refused. No SLURM needed.
#   cluster  starts a private single-node SLURM cluster (munged, slurmctld, slurmd) on localhost,
#            runs a 3-task job array through sweep.py --submit / sweep.sbatch, then interrupts a
#            run.sbatch job twice: USR1 to the batch shell (what --signal=B:USR1@120 does before
#            the time limit; the job must requeue itself) and `scontrol requeue` (TERM to every
#            process, as for preemption; SLURM requeues, the shell must not requeue again). Each
#            time sipd-run checkpoints and the next run resumes; the final output must equal an
#            uninterrupted run bit for bit. A third job runs into its 1-minute time limit without
#            the warning: the TERM from the limit must requeue it, it resumes, and a scancel then
#            checkpoints it and leaves it cancelled (about two minutes in all, mostly waiting for
#            SLURM's time-limit check and requeue delay). Exits 77 (skipped) only when SLURM/munge are not installed or the
#            daemons cannot be started; any failure once the cluster is up fails the test.
set -u
case_name=$1; bin=$(realpath "$2"); src=$(realpath "$3")
tmp=$(mktemp -d /tmp/sipd_slurm_XXXXXX)
cleanup_hooks=()
cleanup() {
  local h
  for h in "${cleanup_hooks[@]}"; do eval "$h"; done
  if [ -n "${SIPD_TEST_KEEP:-}" ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
skip() { echo "SKIP [$case_name]: $*" >&2; exit 77; }

sweep=$src/tools/slurm/sweep.py
export HDF5_USE_FILE_LOCKING=FALSE   # read files that a job may still be writing

# number of frames in an output file (dimension 0 of /frames/positions), empty if unreadable
nframes() { h5dump -H -d /frames/positions "$1" 2>/dev/null | sed -n 's/.*DATASPACE  SIMPLE { ( \([0-9]*\),.*/\1/p'; }
exit_reason() { h5dump -a /exit_reason "$1" 2>/dev/null | sed -n 's/.*(0): "\(.*\)".*/\1/p'; }

case $case_name in
sweep)
  command -v python3 >/dev/null || fail "python3 not found"
  export SIPD_RUN=$bin   # sweep.py validates every generated scene with it
  # 1. the example scene itself: meshes are rewritten to absolute paths (no common directory)
  out=$tmp/sw1
  python3 "$sweep" "$src/scenes/twist.cfg" --set solver.iterations=40,60 \
    --set 'materials.[0].poisson=0.3,0.45' --set 'solver.sweep=jacobi,gauss-seidel' \
    --set time.dt=1 --set output.checkpoint_every=5 --max-parallel 3 --out "$out" \
    >"$tmp/cmd" 2>"$tmp/err" || { cat "$tmp/err" >&2; fail "sweep.py exited $?"; }
  grep -qxF "sbatch --array=0-7%3 $(realpath --relative-to=. "$src/tools/slurm/sweep.sbatch") $out/list.txt" "$tmp/cmd" \
    || fail "printed command: $(cat "$tmp/cmd")"
  [ "$(wc -l <"$out/list.txt")" = 8 ] || fail "list.txt has $(wc -l <"$out/list.txt") lines, expected 8"
  [ "$(wc -l <"$out/params.tsv")" = 9 ] || fail "params.tsv has $(wc -l <"$out/params.tsv") lines, expected 9"
  printf 'index\tscene\toutput\tsolver.iterations\tmaterials.[0].poisson\tsolver.sweep\ttime.dt\toutput.checkpoint_every\n' >"$tmp/hdr"
  head -1 "$out/params.tsv" | cmp -s - "$tmp/hdr" || fail "params.tsv header: $(head -1 "$out/params.tsv")"
  # expected grid, first --set slowest
  i=0
  for it in 40 60; do for nu in 0.3 0.45; do for sw in jacobi gauss-seidel; do
    printf '%d\tscene_%03d.cfg\tscene_%03d.h5\t%s\t%s\t%s\t1.0\t5\n' $i $i $i $it $nu $sw
    i=$((i + 1))
  done; done; done >"$tmp/expect.tsv"
  tail -n +2 "$out/params.tsv" | diff "$tmp/expect.tsv" - >&2 || fail "params.tsv rows differ from the grid"
  # every generated scene: dry-run passes and resolves to the row's values
  tail -n +2 "$out/params.tsv" | while IFS=$'\t' read -r idx scene output it nu sw dt ck; do
    line=$(sed -n "$((idx + 1))p" "$out/list.txt")
    [ "$line" = "$scene" ] || fail "list.txt line $((idx + 1)) is '$line', params.tsv says $scene"
    "$bin" --dry-run "$out/$scene" </dev/null >"$tmp/dry" 2>"$tmp/err" || { cat "$tmp/err" >&2; fail "$scene fails --dry-run"; }
    python3 - "$tmp/dry" "$it" "$nu" "$sw" "$out/$output" "$src/scenes/meshes/bar" <<'EOF' || fail "$scene resolves to other values"
import os, re, sys
txt = open(sys.argv[1]).read()
it, nu, sw, output, mesh = sys.argv[2:]
def val(key):
    m = re.search(r"\b%s = ([^;]*);" % key, txt)
    return m.group(1) if m else None
ok = True
for key, got, want in [("iterations", val("iterations"), it), ("sweep", val("sweep"), '"%s"' % sw),
                       ("dt", val("dt"), "1.0"), ("checkpoint_every", val("checkpoint_every"), "5")]:
    if got != want:
        print("%s = %s, expected %s" % (key, got, want), file=sys.stderr); ok = False
if val("poisson") is None or abs(float(val("poisson")) - float(nu)) > 1e-12:
    print("poisson = %s, expected %s" % (val("poisson"), nu), file=sys.stderr); ok = False
for key, want in [("file", output), ("mesh", mesh)]:
    got = (val(key) or '""').strip('"')
    if os.path.realpath(got) != os.path.realpath(want):
        print("%s = %s, expected %s" % (key, got, want), file=sys.stderr); ok = False
sys.exit(0 if ok else 1)
EOF
  done || exit 1
  head -2 "$out/scene_005.cfg" | grep -q "^# A bar (1.6 m long)" || fail "the base scene's comments were not kept"
  # a generated scene runs and writes its output into the sweep directory
  ( cd "$tmp" && "$bin" --quiet --device cpu --frames 2 "$out/scene_003.cfg" ) || fail "scene_003 does not run"
  [ "$(nframes "$out/scene_003.h5")" = 3 ] || fail "scene_003.h5 missing or without 3 frames"

  # 2. a copy with @include, relative meshes and a new sweep directory beside it: relative paths
  mkdir -p "$tmp/proj/scenes/meshes"
  cp "$src/scenes/meshes/bar".* "$tmp/proj/scenes/meshes/"
  printf 'materials = ( { name = "rubber"; youngs = 5.0e5; poisson = 0.4; density = 1000.0; } );\n' >"$tmp/proj/scenes/mat.cfg"
  sed -e 's|^materials.*|@include "mat.cfg"|' -e '/^output/d' "$src/scenes/twist.cfg" >"$tmp/proj/scenes/base.cfg"
  grep -q '^@include "mat.cfg"' "$tmp/proj/scenes/base.cfg" || fail "test set-up: no @include in the copy"
  ( cd "$tmp/proj" && python3 "$sweep" scenes/base.cfg --set 'materials.rubber.youngs=1e6,2.0e6' \
      --set 'gravity=[0.0, -9.81, 0.0],[0.0, 0.0, -1.0]' --set solver.method=newton --out runs/a --validate \
      >"$tmp/cmd" 2>"$tmp/err" ) || { cat "$tmp/err" >&2; fail "sweep.py on the copy exited $?"; }
  [ "$(wc -l <"$tmp/proj/runs/a/list.txt")" = 4 ] || fail "copy: list.txt should have 4 lines"
  grep -q 'mesh = "../../scenes/meshes/bar"' "$tmp/proj/runs/a/scene_002.cfg" || fail "copy: mesh path not rewritten relatively"
  grep -q 'gravity  = \[0.0, 0.0, -1.0\]' "$tmp/proj/runs/a/scene_001.cfg" || fail "copy: gravity not set"
  grep -q 'youngs = 2.0e6' "$tmp/proj/runs/a/scene_003.cfg" || fail "copy: youngs not set in the inlined @include"
  grep -q 'output = { file = "scene_000.h5"; };' "$tmp/proj/runs/a/scene_000.cfg" || fail "copy: output group not added"
  mv "$tmp/proj/runs" "$tmp/proj/moved" && "$bin" --dry-run "$tmp/proj/moved/a/scene_001.cfg" >/dev/null 2>&1 \
    || fail "copy: a sweep moved within the project does not validate"
  mv "$tmp/proj/moved" "$tmp/proj/runs"

  # 3. errors: exit 2 and a message naming the key
  expect2() { # pattern -- args
    local pat=$1; shift 2
    python3 "$sweep" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    [ $rc = 2 ] || fail "sweep.py $* exited $rc, expected 2"
    grep -qE -- "$pat" "$tmp/err" || fail "sweep.py $*: stderr lacks /$pat/: $(cat "$tmp/err")"
  }
  expect2 "materials.\[3\].poisson" -- "$src/scenes/twist.cfg" --set 'materials.[3].poisson=0.3' --out "$tmp/e1"
  expect2 "solver.iterations: .*integer" -- "$src/scenes/twist.cfg" --set solver.iterations=1.5 --out "$tmp/e2"
  expect2 "bad key path" -- "$src/scenes/twist.cfg" --set 'solver..x=1' --out "$tmp/e3"
  expect2 "already there" -- "$src/scenes/twist.cfg" --set solver.iterations=5 --out "$out"
  printf 'time = { dt = 0.01;\n  frames = ; };\n' >"$tmp/broken.cfg"
  expect2 "broken.cfg:2:" -- "$tmp/broken.cfg" --set time.dt=0.1 --out "$tmp/e4"
  # 4. every scene passes `sipd-run --dry-run` before list.txt exists: a key sipd-run does not
  # know (here a typo the base scene does not set, so sweep.py would add it) and a value it
  # refuses stop the sweep with no job to submit
  expect2 "--set solver.iteration: sipd-run does not know this key .*unknown key 'solver.iteration'" -- \
    "$src/scenes/twist.cfg" --set solver.iteration=50 --out "$tmp/e5"
  [ ! -e "$tmp/e5/list.txt" ] || fail "a sweep with an unknown key wrote list.txt"
  expect2 "^sweep.py: 2 of 3 generated scenes fail .*no list.txt was written" -- \
    "$src/scenes/twist.cfg" --set solver.iterations=50,0,-1 --out "$tmp/e6"
  grep -q "e6/scene_001.cfg:[0-9]*: solver.iterations: must be in \[1, 100000000\], got 0" "$tmp/err" ||
    fail "the failing scene's own message is not shown: $(cat "$tmp/err")"
  [ ! -e "$tmp/e6/list.txt" ] || fail "a sweep with refused values wrote list.txt"
  # --force over a valid sweep whose new grid fails: the old list.txt is gone too
  expect2 "no list.txt was written" -- "$src/scenes/twist.cfg" --set solver.iterations=0 --out "$out" --force
  [ ! -e "$out/list.txt" ] || fail "--force with failing scenes left the previous list.txt"
  # the check can be skipped (where sipd-run cannot run); without sipd-run it is an error
  python3 "$sweep" "$src/scenes/twist.cfg" --set solver.iteration=50 --out "$tmp/e7" --no-validate \
    >/dev/null 2>"$tmp/err" || fail "--no-validate: exit $?: $(cat "$tmp/err")"
  [ -s "$tmp/e7/list.txt" ] || fail "--no-validate wrote no list.txt"
  SIPD_RUN=$tmp/no-such-binary expect2 "cannot run .*no-such-binary" -- "$src/scenes/twist.cfg" \
    --set solver.iterations=50 --out "$tmp/e8"
  ;;

cluster)
  for c in slurmctld slurmd sbatch sinfo scontrol scancel squeue munged; do
    command -v $c >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v $c >/dev/null 2>&1 \
      || skip "$c not installed (Debian: apt-get install slurmctld slurmd slurm-client munge)"
  done
  export PATH=$PATH:/usr/sbin:/sbin
  command -v python3 >/dev/null || skip "python3 not found"
  [ "$(id -u)" = 0 ] || skip "the private SLURM cluster runs its daemons as root (SlurmUser=root); run as root"

  # --- munge with a private key and socket -------------------------------------------------
  m=$tmp/munge
  mkdir -p "$m" && chmod 755 "$m"
  if command -v mungekey >/dev/null 2>&1; then
    mungekey --create --keyfile="$m/munge.key" 2>"$tmp/err" || skip "mungekey failed: $(cat "$tmp/err")"
  else
    head -c 1024 /dev/urandom >"$m/munge.key"
  fi
  chmod 600 "$m/munge.key"
  munged --force --key-file="$m/munge.key" --socket="$m/munge.socket" --pid-file="$m/munged.pid" \
    --log-file="$m/munged.log" --seed-file="$m/munged.seed" 2>"$tmp/err" \
    || skip "munged cannot start: $(cat "$tmp/err" "$m/munged.log" 2>/dev/null)"
  cleanup_hooks+=('[ -s "$m/munged.pid" ] && kill "$(cat "$m/munged.pid")" 2>/dev/null')

  # --- slurm.conf: private ports, state, spool and logs ----------------------------------------
  host=$(hostname -s)
  read -r p1 p2 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
  mkdir -p "$tmp/state" "$tmp/spool" "$tmp/work/logs"
  export SLURM_CONF=$tmp/slurm.conf
  cat >"$SLURM_CONF" <<EOF
ClusterName=sipdtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$p1
SlurmdPort=$p2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire also sets how long a requeued job waits before it may start again (default 120 s)
AuthInfo=socket=$m/munge.socket,cred_expire=10
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=1
MpiDefault=none
ReturnToService=2
KillWait=10
MinJobAge=600
# four job slots whatever the machine has (the jobs are small); config_overrides lets slurmd
# accept a node description that differs from the hardware
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  slurmctld -D -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
  ctld_pid=$!
  slurmd -D -f "$SLURM_CONF" -N "$host" >"$tmp/slurmd.out" 2>&1 &
  d_pid=$!
  # stop jobs first (their slurmstepd and sipd-run belong to this cluster), then the daemons
  cleanup_hooks=('timeout 10 scancel --full --signal=KILL --user=root >/dev/null 2>&1; timeout 10 scancel --user=root >/dev/null 2>&1; sleep 1'
                 'kill $d_pid $ctld_pid 2>/dev/null; wait $d_pid $ctld_pid 2>/dev/null'
                 "${cleanup_hooks[@]}")
  up=
  for _ in $(seq 60); do
    if [ "$(sinfo -h -n "$host" -o %T 2>/dev/null)" = idle ]; then up=1; break; fi
    kill -0 $ctld_pid 2>/dev/null && kill -0 $d_pid 2>/dev/null || break
    sleep 0.5
  done
  if [ -z "$up" ]; then
    tail -n 20 "$tmp/slurmctld.out" "$tmp/slurmd.out" "$tmp/slurmctld.log" "$tmp/slurmd.log" >&2 2>/dev/null
    skip "the private SLURM cluster did not come up (sinfo: $(sinfo -h -o %T 2>&1))"
  fi
  echo "slurm cluster up: node $host, ports $p1/$p2, $tmp" >&2
  # from here on every problem is a failure
  dump() {
    echo "--- scontrol show job ---" >&2; scontrol show job >&2 2>&1
    for f in "$tmp"/work/logs/*; do echo "--- $f ---" >&2; tail -n 30 "$f" >&2; done
    echo "--- slurmctld.log ---" >&2; tail -n 30 "$tmp/slurmctld.log" >&2
    echo "--- slurmd.log ---" >&2; tail -n 30 "$tmp/slurmd.log" >&2
  }
  fail() { echo "FAIL [$case_name]: $*" >&2; dump; exit 1; }
  export SIPD_RUN=$bin
  cd "$tmp/work"
  jobfield() { scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }

  # wait_until WHAT SECONDS COMMAND...: poll COMMAND; fail on timeout or when job $watch failed
  watch=
  wait_until() {
    local what=$1 limit=$2 end st; shift 2
    end=$((SECONDS + limit))
    until "$@"; do
      if [ -n "$watch" ]; then
        st=$(jobfield "$watch" JobState)
        case $st in FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE)
          fail "job $watch ended in state $st while waiting for $what";; esac
      fi
      [ $SECONDS -lt $end ] || fail "timed out after $limit s waiting for $what"
      sleep 0.2
    done
  }
  frames_of() { local n; n=$(nframes "$1"); [ -n "$n" ] && [ "$n" -ge "$2" ]; }    # FILE N
  log_count() { [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ]; }               # FILE PATTERN N
  # a signal between the substeps of a frame stops there ("after frame F and S of N steps of
  # frame F+1") and the resume says "at frame F, step S of N of frame F+1" (issue 12, D10)
  stop_frame() { grep -o 'stopped by a signal after frame [0-9]*' "$1" | sed -n "$2p" | grep -o '[0-9]*$'; }

  # --- 0. first, so that it runs alongside the rest: a job that reaches its 1-minute time limit
  # without the USR1 warning (--signal=B:URG, ignored): the TERM from the limit must requeue it
  tl=$(sbatch --parsable --time=1 --signal=B:URG@1 --job-name=timelimit "$src/tools/slurm/run.sbatch" \
       "$src/scenes/cantilever.cfg" --frames 100000 --device cpu --threads 1 --output "$tmp/work/tl.h5") \
    || fail "sbatch of the time-limit job failed"
  tl=${tl%%;*}
  tl_t0=$SECONDS

  # --- 1. a job array from sweep.py --submit --------------------------------------------------
  t0=$SECONDS
  python3 "$sweep" "$src/scenes/twist.cfg" --set 'materials.[0].poisson=0.3,0.4,0.45' --out arr \
    --sipd-args '--frames 20 --device cpu --quiet' --sbatch-arg=--wait --sbatch-arg=--time=5 --submit \
    >"$tmp/submit.out" 2>&1 || fail "the array job failed (sbatch --wait: $?): $(cat "$tmp/submit.out")"
  arr=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' "$tmp/submit.out")
  [ -n "$arr" ] || fail "no job id in: $(cat "$tmp/submit.out")"
  for i in 0 1 2; do
    f=arr/scene_00$i.h5
    [ "$(nframes $f)" = 21 ] || fail "array task $i: $f has '$(nframes $f)' frames, expected 21"
    [ "$(exit_reason $f)" = completed ] || fail "array task $i: exit_reason '$(exit_reason $f)'"
    [ -s logs/sipd-sweep_${arr}_$i.out ] || fail "array task $i: no log logs/sipd-sweep_${arr}_$i.out"
    grep -q "exited with status 0" logs/sipd-sweep_${arr}_$i.out || fail "array task $i: log does not show status 0"
  done
  echo "array job $arr: 3 tasks completed in $((SECONDS - t0)) s" >&2

  # --- 2. a single job interrupted twice, requeued and resumed ----------------------------------
  t0=$SECONDS
  frames=1500
  run_opts=(--frames $frames --device cpu --threads 1)
  "$bin" "$src/scenes/cantilever.cfg" --quiet "${run_opts[@]}" --output "$tmp/ref.h5" >"$tmp/ref.out" 2>&1 &
  ref_pid=$!
  cleanup_hooks=("kill $ref_pid 2>/dev/null" "${cleanup_hooks[@]}")
  jid=$(sbatch --parsable --time=5 "$src/tools/slurm/run.sbatch" "$src/scenes/cantilever.cfg" "${run_opts[@]}" \
        --output "$tmp/work/long.h5") || fail "sbatch run.sbatch failed"
  jid=${jid%%;*}
  log=logs/sipd_$jid.out
  watch=$jid

  wait_until "30 frames of the first run" 60 frames_of long.h5 30
  scancel --batch --signal=USR1 "$jid" || fail "scancel --batch --signal=USR1 $jid"
  wait_until "the first requeue" 30 log_count "$log" "requeueing job $jid" 1
  grep -q "got SIGUSR1" "$log" || fail "the batch shell did not report SIGUSR1"
  [ -s long.h5.ckpt ] || fail "no checkpoint long.h5.ckpt after the first stop"
  n1=$(stop_frame "$log" 1)
  [ -n "$n1" ] && [ "$n1" -lt $frames ] || fail "sipd-run did not report stopping before frame $frames"
  echo "job $jid: stop 1 (USR1 to the batch shell) after frame $n1, requeued by the batch shell, $((SECONDS - t0)) s" >&2

  # second stop: SLURM's own requeue (TERM to every process, as for preemption); the batch shell
  # must not requeue again
  wait_until "the second run to start" 90 log_count "$log" "restart 1 on" 1
  wait_until "the second run to pass frame $((n1 + 100))" 60 frames_of long.h5 $((n1 + 100))
  grep -q "resuming from .*long.h5.ckpt at frame $n1\(, step [0-9]* of [0-9]* of frame [0-9]*\)\?\$" "$log" || fail "the second run did not resume at frame $n1"
  scontrol requeue "$jid" || fail "scontrol requeue $jid"
  wait_until "the second stop" 30 log_count "$log" "stopped after a checkpoint on SIGTERM" 1
  sed -n '/restart 1 on/,$p' "$log" | grep -q "Job is pending\|requeueing job $jid" \
    && fail "the batch shell requeued a job that SLURM was requeueing"
  n2=$(stop_frame "$log" 2)
  [ -n "$n2" ] && [ "$n2" -gt "$n1" ] && [ "$n2" -lt $frames ] || fail "second stop at frame '$n2' (first $n1)"
  echo "job $jid: stop 2 (scontrol requeue) after frame $n2, requeued by SLURM, $((SECONDS - t0)) s" >&2

  job_done() { [ "$(jobfield "$jid" JobState)" = COMPLETED ]; }
  wait_until "the job to complete" 120 job_done
  [ "$(jobfield "$jid" Restarts)" = 2 ] || fail "job $jid restarted $(jobfield "$jid" Restarts) times, expected 2"
  [ "$(jobfield "$jid" ExitCode)" = 0:0 ] || fail "job $jid exit code $(jobfield "$jid" ExitCode)"
  grep -q "resuming from .*long.h5.ckpt at frame $n2\(, step [0-9]* of [0-9]* of frame [0-9]*\)\?\$" "$log" || fail "the third run did not resume at frame $n2"
  grep -q "exited with status 0" "$log" || fail "the log does not end with status 0"
  [ "$(nframes long.h5)" = $((frames + 1)) ] || fail "long.h5 has $(nframes long.h5) frames, expected $((frames + 1))"
  [ "$(exit_reason long.h5)" = completed ] || fail "long.h5 exit_reason '$(exit_reason long.h5)'"
  wait $ref_pid || { cat "$tmp/ref.out" >&2; fail "the uninterrupted reference run failed"; }
  h5diff "$tmp/ref.h5" long.h5 /frames/positions /frames/positions >"$tmp/diff" 2>&1 \
    || { head -20 "$tmp/diff" >&2; fail "final positions differ from the uninterrupted run"; }
  h5diff "$tmp/ref.h5" long.h5 /frames/time /frames/time >/dev/null 2>&1 || fail "frame times differ from the uninterrupted run"
  echo "job $jid: completed $frames frames, bit-identical to an uninterrupted run, $((SECONDS - t0)) s" >&2

  # --- 3. the job that ran into its time limit: requeued, resumed; then scancel: stays cancelled ---
  tlog=logs/timelimit_$tl.out
  watch=   # its state passes through TIMEOUT and CANCELLED on purpose
  wait_until "job $tl to reach its time limit and requeue" 150 log_count "$tlog" "requeueing job $tl" 1
  grep -q "DUE TO TIME LIMIT" "$tlog" || fail "job $tl was not stopped by its time limit"
  grep -q "got SIGTERM" "$tlog" || fail "job $tl: the batch shell did not report SIGTERM"
  k=$(stop_frame "$tlog" 1)
  [ -n "$k" ] || fail "job $tl: sipd-run did not report its stop"
  wait_until "job $tl to resume" 60 log_count "$tlog" "resuming from .*tl.h5.ckpt at frame $k\(, step [0-9]* of [0-9]* of frame [0-9]*\)\?\$" 1
  echo "job $tl: time limit after $((SECONDS - tl_t0)) s, stopped after frame $k, requeued and resumed" >&2
  wait_until "job $tl to pass frame $((k + 30))" 60 frames_of tl.h5 $((k + 30))
  scancel "$tl" || fail "scancel $tl"
  tl_ended() { case $(jobfield "$tl" JobState) in CANCELLED|COMPLETED|FAILED|PENDING) return 0;; esac; return 1; }
  wait_until "job $tl to end after scancel" 60 tl_ended
  sleep 2
  [ "$(jobfield "$tl" JobState)" = CANCELLED ] || fail "job $tl is $(jobfield "$tl" JobState) after scancel, not CANCELLED"
  [ "$(jobfield "$tl" Restarts)" = 1 ] || fail "job $tl restarted $(jobfield "$tl" Restarts) times, expected 1"
  log_count "$tlog" "on SIGTERM (status 3); not requeueing" 1 || fail "job $tl: the cancelled run's log: $(grep '^==' "$tlog")"
  [ "$(exit_reason tl.h5)" = signal ] || fail "tl.h5 exit_reason '$(exit_reason tl.h5)', expected signal"
  [ -s tl.h5.ckpt ] || fail "job $tl: no checkpoint after scancel"
  echo "job $tl: scancel checkpointed and stayed cancelled; the whole test took $SECONDS s" >&2
  ;;
*)
  fail "unknown case"
  ;;
esac
exit 0
