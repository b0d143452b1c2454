#!/bin/sh
# `dtsim sweep --slurm` through a real Slurm: munged, slurmctld and slurmd started here, one node on
# loopback, their configuration, state and logs in a temporary folder. A 4-point sweep run through Slurm
# equals the same sweep run locally, file for file; a submission whose array leaves out two points fails
# naming them, and the sweep run again submits only those two. Exits 77 (skipped), with one line saying
# why, where the daemons cannot start.
#   usage: slurm_sweep_test.sh DTSIM SOURCE_DIR WORK_DIR
set -u
dtsim=$1
source_dir=$2
work=$3

skip() { echo "slurm sweep test skipped: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

for daemon in munged slurmctld slurmd sbatch squeue scancel sinfo; do
  command -v "$daemon" > /dev/null 2>&1 || skip "$daemon is not installed (Debian: slurm-wlm, munge)"
done
[ "$(id -u)" = 0 ] || skip "slurmd runs jobs as their users and needs root"

rm -rf "$work"
mkdir -p "$work/munge" "$work/socket" "$work/state" "$work/spool" "$work/log"
# munged wants its key private and the folder of its socket open to every user.
chmod 700 "$work/munge"
chmod 755 "$work" "$work/socket"
work=$(cd "$work" && pwd)
cleanup() {
  for pid_file in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/pid"; do
    [ -f "$pid_file" ] && kill "$(cat "$pid_file")" 2> /dev/null
  done
}
trap cleanup EXIT

dd if=/dev/urandom of="$work/munge/key" bs=1024 count=1 2> /dev/null
chmod 600 "$work/munge/key"
munged --key-file="$work/munge/key" --socket="$work/socket/munge" --pid-file="$work/munge/pid" \
  --log-file="$work/munge/log" --seed-file="$work/munge/seed" > "$work/log/munged.out" 2>&1 ||
  skip "munged did not start: $(tail -n 1 "$work/log/munged.out")"

# Two free ports on loopback, for the controller and the node daemon.
ports=$(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
set -- $ports
node=$(hostname -s)
cat > "$work/slurm.conf" <<EOF
ClusterName=dtsimtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
AuthType=auth/munge
AuthInfo=socket=$work/socket/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$work/slurm.conf"
slurmctld -f "$SLURM_CONF" > "$work/log/slurmctld.out" 2>&1 || skip "slurmctld did not start: $(tail -n 1 "$work/log/slurmctld.out")"
slurmd -f "$SLURM_CONF" > "$work/log/slurmd.out" 2>&1 || skip "slurmd did not start: $(tail -n 1 "$work/log/slurmd.out")"
# A cold machine may take a while: wait up to 3 minutes for the node to take jobs.
ready=no
for _ in $(seq 1 180); do
  if sinfo --noheader --format=%t 2> /dev/null | grep -q idle; then ready=yes; break; fi
  sleep 1
done
[ "$ready" = yes ] || skip "the Slurm node never became idle: $(tail -n 2 "$work/log/slurmd.log" 2> /dev/null)"

scenario="$source_dir/scenarios/teaching/04-hierarchical.yaml"

"$dtsim" sweep "$scenario" -q -j 2 -o "$work/local" || fail "the local sweep failed"
"$dtsim" sweep "$scenario" --slurm -o "$work/slurm" > "$work/slurm.out" 2>&1 || { cat "$work/slurm.out"; fail "the Slurm sweep failed"; }
cat "$work/slurm.out"
grep -q "submitted Slurm job [0-9]*: 4 array tasks" "$work/slurm.out" || fail "no job array of 4 tasks was submitted"
diff -r "$work/local" "$work/slurm" || fail "the Slurm sweep's folder differs from the local one"

# A submission that runs only tasks 0 and 1 (the user's --array wins over dtsim's): the other two points
# are named, the sweep is not written, and the same sweep run again submits those two only.
status=0
"$dtsim" sweep "$scenario" --slurm --sbatch "--array=0-1" -o "$work/partial" > "$work/partial.out" 2>&1 || status=$?
cat "$work/partial.out"
[ "$status" = 2 ] || fail "a sweep with points left undone exited $status, not 2"
grep -q "2 of 4 points did not finish under Slurm" "$work/partial.out" || fail "the undone points were not named"
[ ! -e "$work/partial" ] || fail "an unfinished sweep left its output folder"
"$dtsim" sweep "$scenario" --slurm -o "$work/partial" > "$work/resume.out" 2>&1 || { cat "$work/resume.out"; fail "the resumed sweep failed"; }
cat "$work/resume.out"
[ "$(grep -c "(done before)" "$work/resume.out")" = 2 ] || fail "the resumed sweep did not keep the 2 points done"
grep -q "submitted Slurm job [0-9]*: 2 array tasks" "$work/resume.out" || fail "the resumed sweep did not submit 2 tasks"
diff -r "$work/local" "$work/partial" || fail "the resumed sweep's folder differs from the local one"
[ ! -e "$work/partial/slurm" ] || fail "the finished sweep kept its Slurm logs"
echo "slurm sweep: 4 points through Slurm equal the local sweep; a partial job resumed with 2 tasks"
