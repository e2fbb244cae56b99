# tests/cli_slurm.sh — `skit reproduce --slurm` against a real Slurm: a
# single-node cluster started here (munged, slurmctld, slurmd from Debian's
# packages, installed when missing), a quick run of a few experiments with
# one array task cancelled mid-run and resubmitted with --resume-missing;
# the merged verdicts.json and data must equal a plain run's on one machine.
# Skips (exit 77) only where the packages cannot be installed or the test
# is not root (munged must run as the munge user, the daemons as root).
. "$(dirname "$0")/cli_lib.sh"

skip() { echo "skipped: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "not root (a Slurm cluster is started here)"
have_slurm() { command -v sbatch && command -v slurmctld && command -v slurmd && command -v munged; } >/dev/null 2>&1
PATH=$PATH:/usr/sbin:/sbin
if ! have_slurm && command -v apt-get >/dev/null 2>&1; then
  packages="slurmd slurmctld munge slurm-client"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends $packages >"$TMP/apt.log" 2>&1 ||
    { apt-get update -q >>"$TMP/apt.log" 2>&1 &&
      apt-get install -y -q --no-install-recommends $packages >>"$TMP/apt.log" 2>&1; }
fi
have_slurm || skip "Slurm and munge are not installed and apt-get could not install them"

# ---- the cluster: everything in $TMP, on ports of its own ----------------
pids=()
stop_cluster() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  done
  rm -rf "$TMP"
}
trap stop_cluster EXIT
chmod 755 "$TMP" # munged (the munge user) must reach its socket and key
C=$TMP/cluster
mkdir -p "$C/munge" "$C/state" "$C/spool"
chmod 755 "$C"
head -c 1024 /dev/urandom > "$C/munge/munge.key"
chown -R munge: "$C/munge"
chmod 400 "$C/munge/munge.key"
host=$(hostname -s)
# two free ports (something that answers on 127.0.0.1 holds one): a random
# pair alone could collide with a service of the machine
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in $(seq 50); do
  port=$((20000 + RANDOM % 20000))
  port_taken "$port" || port_taken $((port + 1)) || break
done
cat > "$C/slurm.conf" <<EOF
ClusterName=skittest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$C/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$C/state
SlurmdSpoolDir=$C/spool
SlurmctldPidFile=$C/slurmctld.pid
SlurmdPidFile=$C/slurmd.pid
SlurmctldLogFile=$C/slurmctld.log
SlurmdLogFile=$C/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$C/slurm.conf
# pid_of FILE: the PID a daemon wrote, once it did
pid_of() { for _ in $(seq 100); do [ -s "$1" ] && { cat "$1"; return; }; sleep 0.1; done; }
start() { # NAME PIDFILE command...
  local name=$1 pidfile=$2; shift 2
  "$@" || { cat "$C"/*.log "$C"/munge/*.log 2>/dev/null >&2; skip "$name did not start"; }
  local pid; pid=$(pid_of "$pidfile")
  [ -n "$pid" ] || skip "$name wrote no PID file"
  pids+=("$pid")
}
start munged "$C/munge/munged.pid" runuser -u munge -- munged --key-file="$C/munge/munge.key" \
  --socket="$C/munge/munge.socket" --pid-file="$C/munge/munged.pid" \
  --log-file="$C/munge/munged.log" --seed-file="$C/munge/seed"
start slurmctld "$C/slurmctld.pid" slurmctld -f "$SLURM_CONF"
start slurmd "$C/slurmd.pid" slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
  [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ] && break
  sleep 0.2
done
[ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ] ||
  { fail "the node never became idle: $(sinfo 2>&1); $(tail -n 5 "$C/slurmctld.log" "$C/slurmd.log")"; finish; exit; }

# ---- the run --------------------------------------------------------------
# Quick experiments with deterministic claims (their verdicts.json is the
# same on every run); 27 takes long enough (seconds) to be cancelled mid-run;
# 53 (training) runs as three units, one task each, combined by the merge.
EXPERIMENTS=02,23,24,27,53
SLOW=27_lemma3_analytic
R=$TMP/run
jobs_gone() { [ -z "$(squeue -h 2>/dev/null)" ]; }
wait_jobs() { for _ in $(seq 1200); do jobs_gone && return 0; sleep 0.5; done; fail "jobs still queued: $(squeue)"; }

expect_usage_error "--resume-missing" reproduce --slurm --resume-missing --out "$TMP/out.none"
expect_usage_error "--slurm" reproduce --slurm --merge --out "$TMP/out.dir"
expect_usage_error "--slurm" reproduce --slurm-opt=--time=5 --out "$TMP/out.dir"
expect_usage_error "--resume-missing" reproduce --slurm --resume-missing --quick --out "$TMP/out.dir"

expect_ok reproduce --quick --slurm --only "$EXPERIMENTS" --out "$R" --slurm-opt=--time=30 \
  --slurm-opt=--cpus-per-task=1
read -r array merge < "$R/slurm/jobs"
[ "$(wc -l < "$R/slurm/tasks-1")" -eq 7 ] && grep -q '^53_train_responses@s3$' "$R/slurm/tasks-1" && pass ||
  fail "tasks-1: $(cat "$R/slurm/tasks-1")"
slow_task=$(grep -n "^$SLOW\$" "$R/slurm/tasks-1" | cut -d: -f1)
# while the jobs are queued, other runs on the directory are refused
"$SKIT" reproduce --quick --only 02 --out "$R" >"$TMP/stdout" 2>"$TMP/stderr"; rc=$?
[ $rc -eq 2 ] && grep -q "in use by Slurm jobs" "$TMP/stderr" && pass ||
  fail "a run on a directory of queued Slurm jobs: exit $rc, $(cat "$TMP/stderr")"
"$SKIT" reproduce --quick --slurm --only 02 --out "$R" >"$TMP/stdout" 2>"$TMP/stderr"; rc=$?
[ $rc -eq 2 ] && grep -q "in use by Slurm jobs" "$TMP/stderr" && pass ||
  fail "a second --slurm on the same directory: exit $rc, $(cat "$TMP/stderr")"
# cancel the slow task once its experiment runs
for _ in $(seq 600); do
  ls "$R/shards/.$SLOW.partial."*/logs/"$SLOW.log" >/dev/null 2>&1 && break
  sleep 0.1
done
scancel "${array}_$slow_task"
wait_jobs
[ ! -e "$R/shards/$SLOW" ] && [ ! -e "$R/REPORT.md" ] && pass ||
  fail "after scancel: $(ls -a "$R" "$R/shards")"
grep -q "shards missing.*$SLOW" "$R/slurm/logs/merge-$merge.out" && pass ||
  fail "the merge job did not refuse the missing shard: $(cat "$R/slurm/logs/merge-$merge.out")"
for e in 02_tnn_special_cases 23_parseval 24_prop1; do
  [ -e "$R/shards/$e/done/$e" ] || fail "shard $e missing: $(ls -a "$R/shards")"
done
run_merge() { "$SKIT" reproduce --merge "$@" --out "$R" >"$TMP/stdout" 2>"$TMP/stderr"; }
run_merge; rc=$?
[ $rc -eq 1 ] && grep -q -- "--resume-missing" "$TMP/stderr" && pass ||
  fail "--merge with a shard missing: exit $rc, $(cat "$TMP/stderr")"
run_merge --allow-partial && head -n 4 "$R/REPORT.md" | tr "\n" " " | grep -q "Partial.*$SLOW" && pass ||
  fail "--merge --allow-partial: $(cat "$TMP/stderr"); $(head -n 4 "$R/REPORT.md" 2>&1)"

expect_ok reproduce --slurm --resume-missing --out "$R"
[ "$(cat "$R/slurm/tasks-2")" = "$SLOW" ] && pass || fail "resubmitted: $(cat "$R/slurm/tasks-2")"
read -r array merge < "$R/slurm/jobs"
# meanwhile, the same experiments on this machine
P=$TMP/plain
expect_ok reproduce --quick --only "$EXPERIMENTS" --out "$P"
wait_jobs
[ -z "$(find "$R/shards" -name '.*.partial.*')" ] && pass ||
  fail "partial shards left: $(find "$R/shards" -name '.*.partial.*')"
cmp -s "$R/verdicts.json" "$P/verdicts.json" && pass ||
  fail "verdicts.json of the Slurm run differs: $(diff "$R/verdicts.json" "$P/verdicts.json" | head; cat "$R/slurm/logs/merge-$merge.out")"
for d in claims notes; do
  diff -r "$R/$d" "$P/$d" >/dev/null && pass || fail "$d/ of the Slurm run differs from the plain run's"
done
same_data "$R" "$P" "the Slurm run against the plain run"
grep -q "Partial" "$R/REPORT.md" && fail "the final report says partial" || pass
finish
