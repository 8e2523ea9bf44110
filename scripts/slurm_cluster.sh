#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for tests/python/test_slurm_example.py and for
# trying examples/slurm by hand (docs/scaling-out.md, "Slurm"). Debian 12 (slurm-wlm
# 22.05 and munge), as root.
#
#   bash scripts/slurm_cluster.sh install           # apt-get what is missing, nothing else
#   bash scripts/slurm_cluster.sh start STATE_DIR   # install, configure, start; waits for the node
#   eval "$(bash scripts/slurm_cluster.sh env STATE_DIR)"   # SLURM_CONF for sbatch, squeue, ...
#   bash scripts/slurm_cluster.sh stop STATE_DIR    # cancels the jobs, stops the daemons
#
# `start` writes everything into STATE_DIR (an absolute path is made of it; it must have
# no spaces or commas): slurm.conf, a munge key and munged's socket, the controller's
# state, slurmd's spool, the logs (slurmctld.log, slurmd.log, munged.log) and a
# job-completion record (jobcomp.log: one line per job that ended, with its state; there
# is no accounting database, so `sacct` has nothing). It starts munged, slurmctld and
# slurmd, waits until the node `localhost` is idle, and prints the lines of `env`.
# Several clusters may run at once, each from its own STATE_DIR: the ports are chosen
# free (from SLURM_CLUSTER_PORT, default 6817, upwards; two each).
#
# The cluster: one node `localhost` (127.0.0.1) with this machine's CPUs and memory,
# one partition `debug` (the default, no time limit), jobs run as the user who submits
# them (SlurmUser root), processes tracked without cgroups (proctrack/linuxproc,
# task/none), cores allocated per job (select/cons_tres, CR_Core) so that array tasks
# share the node. Jobs may be requeued. Differences from Slurm's defaults, to keep
# tests short: a requeued job may start again after 6 s (AuthInfo cred_expire; Slurm's
# default is 120 s); a finished job stays visible to `scontrol show job` for 60 s
# (MinJobAge, default 300 s); KillWait (SIGTERM to SIGKILL at the time limit or a
# cancel) 10 s (default 30 s); the scheduler looks at pending jobs every 2 s.
# Every address in the configuration is localhost (127.0.0.1); slurmd listens on 127.0.0.1
# alone, slurmctld (as Slurm does) on every interface of its port, and answers only
# requests signed with the munge key of STATE_DIR.
#
# Environment: SLURM_CLUSTER_TIMEOUT (seconds `start` waits for the node; default 60),
# SLURM_CLUSTER_PORT (the first port tried).
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

die() {
  echo "slurm_cluster.sh: $*" >&2
  exit 1
}

packages=(slurmctld slurmd slurm-client munge)

install() {
  local missing=() p
  for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || die "${missing[*]} missing: run as root to install them"
  echo "slurm_cluster.sh: installing ${missing[*]}" >&2
  apt-get update -qq >&2
  # The packages' own services are not started (they would need /etc/slurm/slurm.conf
  # and the system's munge key): this script starts its own daemons from STATE_DIR. A
  # policy-rc.d that refuses every start, for the time of the install, where none exists.
  local policy=/usr/sbin/policy-rc.d made_policy=0 rc=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && made_policy=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || rc=$?
  [ "$made_policy" -eq 0 ] || rm -f "$policy"
  [ "$rc" -eq 0 ] || die "apt-get install ${missing[*]} failed ($rc)"
}

state_dir() {
  [ -n "${1:-}" ] || usage
  mkdir -p "$1"
  local d
  d=$(cd "$1" && pwd)
  case "$d" in
    *[[:space:],=]*) die "STATE_DIR must have no spaces, commas or '=': $d" ;;
  esac
  echo "$d"
}

print_env() {
  echo "export SLURM_CONF=$1/slurm.conf"
}

# A TCP port of 127.0.0.1 that nothing listens on, from $1 upwards, not in "$2".
free_port() {
  local p=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || [[ " $2 " == *" $p "* ]]; do
    p=$((p + 1))
  done
  echo "$p"
}

pid_alive() {
  [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

start() {
  local d
  d=$(state_dir "$1")
  [ "$(id -u)" -eq 0 ] || die "start runs as root (SlurmUser=root)"
  install
  if pid_alive "$d/slurmctld.pid"; then
    die "a cluster is already running from $d (stop it first)"
  fi
  local timeout=${SLURM_CLUSTER_TIMEOUT:-60} t0=$SECONDS
  mkdir -p "$d/munge" "$d/ctld" "$d/spool"
  chmod 755 "$d/munge"   # munged wants its socket folder writable by its owner alone

  # munged with its own key and socket: the system's munge (if any) is left alone.
  if [ ! -s "$d/munge/munge.key" ]; then
    (umask 077 && head -c 1024 /dev/urandom > "$d/munge/munge.key")
  fi
  munged --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.socket.2" \
    --pid-file="$d/munge/munged.pid" --log-file="$d/munged.log" --seed-file="$d/munge/munged.seed" ||
    die "munged did not start: $(tail -n 3 "$d/munged.log" 2>/dev/null)"

  local ctld_port slurmd_port
  ctld_port=$(free_port "${SLURM_CLUSTER_PORT:-6817}" "")
  slurmd_port=$(free_port "$((ctld_port + 1))" "$ctld_port")
  # This machine as slurmd sees it: CPUs, sockets, cores, threads, memory.
  local hw
  hw=$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]* //')
  cat > "$d/slurm.conf" <<EOF
# Written by scripts/slurm_cluster.sh: a one-node test cluster, state in $d
ClusterName=simphant-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
CommunicationParameters=NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.socket.2,cred_expire=5
StateSaveLocation=$d/ctld
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$d/jobcomp.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
MpiDefault=none
MailProg=/bin/true
JobRequeue=1
ReturnToService=2
MinJobAge=60
KillWait=10
SlurmdTimeout=60
InactiveLimit=0
NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=localhost $hw State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$d/slurm.conf"
  slurmctld -f "$SLURM_CONF" || die "slurmctld did not start: $(tail -n 5 "$d/slurmctld.log" 2>/dev/null)"
  slurmd -f "$SLURM_CONF" -N localhost || die "slurmd did not start: $(tail -n 5 "$d/slurmd.log" 2>/dev/null)"

  local state=""
  while :; do
    state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    if [ $((SECONDS - t0)) -ge "$timeout" ]; then
      echo "slurm_cluster.sh: the node is not idle after ${timeout} s (state '${state:-no answer}'); logs in $d:" >&2
      tail -n 5 "$d/slurmctld.log" "$d/slurmd.log" >&2 || true
      stop "$d"
      exit 1
    fi
    sleep 0.5
  done
  echo "slurm_cluster.sh: node localhost idle after $((SECONDS - t0)) s (state in $d)" >&2
  print_env "$d"
}

# Sends SIGTERM to the daemons of the pid files given, waits up to 15 s for them to exit
# (together: each takes 1 to 2 s), then sends SIGKILL to those left.
stop_daemons() {
  local pids=() f i pid
  for f in "$@"; do
    if pid_alive "$f"; then
      pids+=("$(cat "$f")")
      kill -TERM "${pids[-1]}" 2>/dev/null || true
    fi
  done
  for ((i = 0; i < 150; i++)); do
    local left=0
    for pid in "${pids[@]}"; do
      kill -0 "$pid" 2>/dev/null && left=1
    done
    [ "$left" -eq 0 ] && return 0
    sleep 0.1
  done
  for pid in "${pids[@]}"; do
    kill -KILL "$pid" 2>/dev/null || true
  done
}

stop() {
  local d
  d=$(state_dir "$1")
  [ -e "$d/slurm.conf" ] || die "no cluster in $d"
  export SLURM_CONF="$d/slurm.conf"
  if pid_alive "$d/slurmctld.pid"; then
    # The jobs first, so that no job process outlives the cluster.
    scancel --full --quiet --cluster=simphant-test --user="$(id -un)" 2>/dev/null ||
      scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
    local i
    for ((i = 0; i < 150; i++)); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  stop_daemons "$d/slurmd.pid" "$d/slurmctld.pid" "$d/munge/munged.pid"
  echo "slurm_cluster.sh: stopped the cluster of $d" >&2
}

case "${1:-}" in
  install) install ;;
  start) [ "$#" -eq 2 ] || usage; start "$2" ;;
  stop) [ "$#" -eq 2 ] || usage; stop "$2" ;;
  env) [ "$#" -eq 2 ] || usage; print_env "$(state_dir "$2")" ;;
  *) usage ;;
esac
