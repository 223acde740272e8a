# shellcheck shell=bash
# A real one-node Slurm cluster on localhost for a test: munged, slurmctld
# and slurmd from Debian's slurm-wlm 22.05 and munge, with every file
# (config, key, sockets, state, spool, logs, pid files) in a directory the
# caller gives. Nothing under /etc/slurm, /etc/munge or systemd is read or
# changed: the clients and the daemons find the config through SLURM_CONF.
#
#   . tests/lib/slurm-local.sh
#   slurm_local_available       -> 0, or one line saying what is missing and 1
#   slurm_local_start DIR       -> 0 with the node idle and SLURM_CONF
#                                  exported, or one line saying what failed
#                                  (with the log's tail) and 1
#   slurm_local_stop DIR        -> cancels every job and ends every process
#                                  of the cluster; safe twice and from a trap
#
# After a start: SLURM_CONF=DIR/slurm.conf, SLURM_LOCAL_NODE (hostname -s),
# SLURM_LOCAL_PARTITION (the only partition, the default one). The node has
# CPUs=$(nproc) and select/cons_tres with CR_CPU: 1-CPU jobs share it.
#
# Knobs, read by slurm_local_start:
#   SLURM_LOCAL_TIMEOUT      s to wait for the node to be idle (60)
#   SLURM_LOCAL_PORT         first port tried (26817); the controller and
#                            slurmd take the next two free ones below 26900
#   SLURM_LOCAL_MIN_JOB_AGE  MinJobAge (300, Slurm's): s a finished job
#                            stays known to squeue and scontrol. `sbatch
#                            --wait` polls 2, 10, 42, 74... s after submit,
#                            but every 2 s if this is 5 or less
#   SLURM_LOCAL_SBIN         where munged, slurmctld and slurmd are
#                            (/usr/sbin)
#
# Batch jobs start about 1 s after sbatch (batch_sched_delay=0; Slurm's
# default of 3 s would make every test wait). Jobs run as root; give them
# --output (or --chdir): the default slurm-%j.out lands in the directory
# sbatch was run from. DIR must be short enough for the unix sockets made
# in it (108 bytes) and hold no space, '#', '=' or ','.

SLURM_LOCAL_PARTITION=local

slurm_local_available() {
	local b missing=
	local sbin=${SLURM_LOCAL_SBIN:-/usr/sbin}
	for b in "$sbin/munged" "$sbin/slurmctld" "$sbin/slurmd" \
		/usr/sbin/slurmstepd /usr/bin/sbatch /usr/bin/sinfo /usr/bin/squeue \
		/usr/bin/scancel /usr/bin/munge; do
		[ -x "$b" ] || missing+=" $b"
	done
	if [ -n "$missing" ]; then
		echo "slurm-local: missing$missing (install slurmctld slurmd slurm-client munge)" >&2
		return 1
	fi
	return 0
}

# One spelling of DIR for start and stop (whatever the caller's ./, ../ or
# symlinks), as it is matched in /proc; DIR need not exist.
_sl_abs() {
	realpath -m -- "$1" 2>/dev/null && return 0
	case $1 in
	/*) printf '%s\n' "${1%/}" ;;
	*) printf '%s/%s\n' "$PWD" "${1%/}" ;;
	esac
}

# The last lines of the given logs on one line.
_sl_tail() {
	local f out=
	for f; do
		[ -s "$f" ] || continue
		out+="${out:+ }${f##*/}: $(tail -n 3 "$f" | tr -s '\n\t' '  ')"
		out=${out% }
	done
	[ -n "$out" ] || out='(logs empty)'
	printf '%s\n' "${out:0:600}"
}

# PID is alive and is one of this cluster's (its command line names DIR):
# a pid file left by an earlier run must not make us signal a stranger.
_sl_ours() { # pid dir
	local cmd
	[ -n "$1" ] && [ -r "/proc/$1/cmdline" ] || return 1
	cmd=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) || return 1
	case $cmd in *"$2/"*) return 0 ;; esac
	return 1
}

_sl_pid() { # pidfile -> pid on stdout
	local p=
	[ -r "$1" ] && read -r p <"$1" 2>/dev/null
	case $p in '' | *[!0-9]*) return 1 ;; esac
	printf '%s\n' "$p"
}

_sl_sid() { # pid -> session id on stdout
	local st sid
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	read -r _ _ _ sid _ <<<"$st"
	[ -n "$sid" ] || return 1
	printf '%s\n' "$sid"
}

# Processes of the cluster found without a pid file: those naming DIR on
# their command line or carrying this cluster's SLURM_CONF in their
# environment (slurmstepd, job processes), and outside the caller's session
# (the daemons, slurmstepd and jobs all run in sessions of their own; the
# caller's own commands may name DIR too) unless they are a Slurm or munge
# daemon.
_sl_strays() { # dir
	local dir=$1 mysid pid sid comm
	mysid=$(_sl_sid "$$") || mysid=
	# grep's own command line holds the pattern too; it is in our session.
	{
		grep -lzF -- "$dir/" /proc/[0-9]*/cmdline
		grep -lzxF -- "SLURM_CONF=$dir/slurm.conf" /proc/[0-9]*/environ
	} 2>/dev/null | while IFS=/ read -r _ _ pid _; do
		[ "$pid" != "$$" ] || continue
		sid=$(_sl_sid "$pid") || continue
		if [ "$sid" != "$mysid" ]; then
			echo "$pid"
			continue
		fi
		# In our session only for the moment between its fork and
		# setsid(): a daemon being started (or a trap during a start).
		read -r comm <"/proc/$pid/comm" 2>/dev/null || continue
		case $comm in
		munged | slurmctld | slurmd | slurmstepd) echo "$pid" ;;
		esac
	done | sort -un || :
	return 0
}

# PID is alive: not gone and not a zombie waiting for its parent.
_sl_alive() { # pid
	local st
	[ -r "/proc/$1/stat" ] || return 1
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	case $st in '' | Z* | X*) return 1 ;; esac
	return 0
}

# Send SIG to PIDS, then wait up to TENTHS tenths of a second for them to
# go; 1 if some are still there.
_sl_kill_wait() { # sig tenths pid...
	local sig=$1 n=$2 p left
	shift 2
	[ $# -gt 0 ] || return 0
	kill "-$sig" "$@" 2>/dev/null || :
	while :; do
		left=0
		for p; do
			_sl_alive "$p" && left=1
		done
		[ "$left" = 0 ] && return 0
		[ "$n" -gt 0 ] || return 1
		n=$((n - 1))
		sleep 0.1
	done
}

# Wait for DIR/run/NAME.pid to name a live process of ours. On failure
# print why (for _sl_fail) and return 1: as soon as it names a dead one, or
# at DEADLINE ($SECONDS) if it never comes.
_sl_wait_daemon() { # dir name deadline
	local pid
	while :; do
		if pid=$(_sl_pid "$1/run/$2.pid"); then
			_sl_ours "$pid" "$1" && return 0
			if ! _sl_alive "$pid"; then
				echo "$2 exited"
				return 1
			fi
		fi
		if [ "$SECONDS" -ge "$3" ]; then
			echo "$2 wrote no pid file in time (SLURM_LOCAL_TIMEOUT)"
			return 1
		fi
		sleep 0.05
	done
}

_sl_port_busy() { # port
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

_sl_fail() { # message logs...
	local msg=$1
	shift
	echo "slurm_local_start: $msg; $(_sl_tail "$@")" >&2
}

_SL_CLASH=

# A start failed: stop what it started. 2 if a daemon could not bind its
# port (taken since the check: another start may retry), else say why, 1.
_sl_abort() { # dir message logs...
	local dir=$1 msg=$2
	shift 2
	if grep -qs 'Address already in use' "$dir/log/slurmctld.log" \
		"$dir/log/slurmd.log" "$dir/log/slurmctld.out" "$dir/log/slurmd.out"; then
		_SL_CLASH="$msg; $(_sl_tail "$@")"
		slurm_local_stop "$dir" || :
		return 2
	fi
	_sl_fail "$msg" "$@"
	slurm_local_stop "$dir" || :
	return 1
}

slurm_local_start() { # dir
	local dir node port rc
	if [ $# -ne 1 ] || [ -z "$1" ]; then
		echo "slurm_local_start: usage: slurm_local_start DIR" >&2
		return 1
	fi
	slurm_local_available || return 1
	dir=$(_sl_abs "$1")
	case $dir in
	*[[:space:]#=,]*)
		echo "slurm_local_start: '$dir' has a space, '#', '=' or ',' that slurm.conf cannot hold" >&2
		return 1
		;;
	esac
	node=$(hostname -s)
	# Longest socket: slurmd's per-step one, spool/NODE_JOBID.STEPID.
	if [ $((${#dir} + ${#node} + 30)) -gt 107 ]; then
		echo "slurm_local_start: $dir is too long for the unix sockets made in it (keep it under $((107 - 30 - ${#node})) bytes)" >&2
		return 1
	fi
	if _sl_ours "$(_sl_pid "$dir/run/slurmctld.pid")" "$dir" ||
		_sl_ours "$(_sl_pid "$dir/run/slurmd.pid")" "$dir" ||
		_sl_ours "$(_sl_pid "$dir/run/munged.pid")" "$dir"; then
		echo "slurm_local_start: a cluster is already running in $dir (slurm_local_stop it first)" >&2
		return 1
	fi
	# Two clusters started at once may both find the same ports free; the
	# one that loses the bind tries further on.
	port=${SLURM_LOCAL_PORT:-26817}
	for _ in 1 2 3 4 5; do
		_sl_start_once "$dir" "$node" "$port" && return 0
		rc=$?
		[ "$rc" = 2 ] || return 1
		port=$(sed -n 's/^SlurmdPort=//p' "$dir/slurm.conf")
		port=$((port + 1 + RANDOM % 8))
	done
	echo "slurm_local_start: a port taken between check and bind, 5 times; last: $_SL_CLASH" >&2
	return 1
}

# One try at a start with ports from PORT on: 0, 1 (said why), or 2 if a
# daemon lost its port to someone else (nothing said, nothing left running).
_sl_start_once() { # dir node port
	local dir=$1 node=$2 port=$3 ctld_port slurmd_port cpus mem hw deadline state reason p why
	local timeout=${SLURM_LOCAL_TIMEOUT:-60} sbin=${SLURM_LOCAL_SBIN:-/usr/sbin}
	# A fresh cluster each time: no job or node state from an earlier run.
	rm -rf "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/tmp"
	if ! mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/tmp"; then
		echo "slurm_local_start: cannot create the directories under $dir" >&2
		return 1
	fi
	# munged wants its socket, key and log directories writable by no one
	# else, and the socket's searchable by all.
	chmod 0700 "$dir/log" "$dir/state" "$dir/spool"
	chmod 0755 "$dir/run"
	chmod 1777 "$dir/tmp"

	# Two free ports: a system Slurm uses 6817/6818; other local clusters
	# started by parallel tests take the next free pair.
	ctld_port='' slurmd_port=''
	while [ "$port" -lt 26900 ]; do
		if ! _sl_port_busy "$port"; then
			if [ -z "$ctld_port" ]; then
				ctld_port=$port
			else
				slurmd_port=$port
				break
			fi
		fi
		port=$((port + 1))
	done
	if [ -z "$slurmd_port" ]; then
		echo "slurm_local_start: no two free ports in $3-26899" >&2
		return 1
	fi

	cpus=$(nproc)
	hw=$("$sbin/slurmd" -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p') || hw=
	if [ -z "$hw" ]; then
		hw=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
	fi
	# Below what slurmd measures, so that a small change in free memory
	# never drains the node for "Low RealMemory".
	mem=$((hw * 9 / 10))
	[ "$mem" -ge 1 ] || mem=1

	if ! head -c 1024 /dev/urandom >"$dir/munge.key" || ! chmod 0400 "$dir/munge.key"; then
		echo "slurm_local_start: cannot write $dir/munge.key" >&2
		return 1
	fi
	: >"$dir/plugstack.conf"
	cat >"$dir/slurm.conf" <<EOF
# Written by tests/lib/slurm-local.sh for a one-node test cluster.
ClusterName=local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/run/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
TmpFS=$dir/tmp
PlugStackConfig=$dir/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
KillWait=2
InactiveLimit=0
MinJobAge=${SLURM_LOCAL_MIN_JOB_AGE:-300}
SchedulerParameters=batch_sched_delay=0
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$node CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=$SLURM_LOCAL_PARTITION Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF="$dir/slurm.conf"
	export SLURM_LOCAL_NODE="$node"

	deadline=$((SECONDS + timeout))

	# munged refuses to run as root without --force. It forks and its
	# parent returns once the socket is up.
	if ! "$sbin/munged" --force --socket="$dir/run/munge.sock" \
		--key-file="$dir/munge.key" --pid-file="$dir/run/munged.pid" \
		--log-file="$dir/log/munged.log" --seed-file="$dir/run/munged.seed" \
		</dev/null >"$dir/log/munged.out" 2>&1; then
		_sl_abort "$dir" "munged did not start" "$dir/log/munged.out" "$dir/log/munged.log" || return $?
	fi
	if ! munge -n -S "$dir/run/munge.sock" 2>"$dir/log/munge-check.err" |
		unmunge -S "$dir/run/munge.sock" >/dev/null 2>>"$dir/log/munge-check.err"; then
		_sl_abort "$dir" "munged does not answer on $dir/run/munge.sock" \
			"$dir/log/munge-check.err" "$dir/log/munged.log" || return $?
	fi

	# Daemon mode: each forks into a session of its own with stdin and
	# stdout away from the caller's (a test's TAP stream) and writes its
	# pid file; -f puts DIR on the command line for _sl_ours.
	if ! why=$(_sl_wait_daemon "$dir" munged "$deadline"); then
		_sl_abort "$dir" "$why" "$dir/log/munged.out" "$dir/log/munged.log" || return $?
	fi
	if ! "$sbin/slurmctld" -f "$dir/slurm.conf" </dev/null >"$dir/log/slurmctld.out" 2>&1; then
		_sl_abort "$dir" "slurmctld did not start" "$dir/log/slurmctld.out" "$dir/log/slurmctld.log" || return $?
	fi
	# The pid file comes a few ms after the command returns; a stop in
	# between would find no pid, so wait for it.
	if ! why=$(_sl_wait_daemon "$dir" slurmctld "$deadline"); then
		_sl_abort "$dir" "$why" "$dir/log/slurmctld.out" "$dir/log/slurmctld.log" || return $?
	fi
	if ! "$sbin/slurmd" -f "$dir/slurm.conf" -N "$node" </dev/null >"$dir/log/slurmd.out" 2>&1; then
		_sl_abort "$dir" "slurmd did not start" "$dir/log/slurmd.out" "$dir/log/slurmd.log" || return $?
	fi
	if ! why=$(_sl_wait_daemon "$dir" slurmd "$deadline"); then
		_sl_abort "$dir" "$why" "$dir/log/slurmd.out" "$dir/log/slurmd.log" || return $?
	fi

	state=
	while :; do
		for p in slurmctld slurmd munged; do
			_sl_ours "$(_sl_pid "$dir/run/$p.pid")" "$dir" && continue
			_sl_abort "$dir" "$p exited" "$dir/log/$p.out" "$dir/log/$p.log" || return $?
		done
		state=$(timeout 5 sinfo -h -N -n "$node" -o %T 2>/dev/null) || state=
		state=${state%%$'\n'*}
		[ "$state" = idle ] && break
		if [ "$SECONDS" -ge "$deadline" ]; then
			reason=$(timeout 5 sinfo -h -N -n "$node" -o %E 2>/dev/null) || reason=
			reason=${reason%%$'\n'*}
			[ -z "$reason" ] || reason=", reason \"$reason\""
			_sl_abort "$dir" "node $node not idle after $timeout s (state \"${state:-no answer}\"$reason)" \
				"$dir/log/slurmctld.log" "$dir/log/slurmd.log" || return $?
		fi
		sleep 0.2
	done
	return 0
}

slurm_local_stop() { # dir
	local dir p pids='' all='' jobs left n
	if [ $# -ne 1 ] || [ -z "$1" ]; then
		echo "slurm_local_stop: usage: slurm_local_stop DIR" >&2
		return 1
	fi
	dir=$(_sl_abs "$1")
	[ -d "$dir" ] || return 0

	# Cancel the jobs while the controller is up, and give their steps
	# KillWait (2 s) and a little more to end.
	if [ -f "$dir/slurm.conf" ] && _sl_ours "$(_sl_pid "$dir/run/slurmctld.pid")" "$dir"; then
		n=$((SECONDS + 10))
		SLURM_CONF="$dir/slurm.conf" timeout 5 scancel --quiet \
			--partition="$SLURM_LOCAL_PARTITION" >/dev/null 2>&1 || :
		while [ "$SECONDS" -lt "$n" ]; do
			jobs=$(SLURM_CONF="$dir/slurm.conf" timeout 3 squeue -h -o %i 2>/dev/null) || break
			[ -z "$jobs" ] && break
			sleep 0.2
		done
	fi

	# The Slurm daemons before munged, which they use on the way down.
	for p in slurmd slurmctld; do
		p=$(_sl_pid "$dir/run/$p.pid") && _sl_ours "$p" "$dir" && pids+=" $p"
	done
	# shellcheck disable=SC2086 # a list of pids
	_sl_kill_wait TERM 100 $pids || _sl_kill_wait KILL 30 $pids || :
	all+=" $pids"
	pids=
	p=$(_sl_pid "$dir/run/munged.pid") && _sl_ours "$p" "$dir" && pids=$p
	# shellcheck disable=SC2086
	_sl_kill_wait TERM 50 $pids || _sl_kill_wait KILL 30 $pids || :
	all+=" $pids"

	# Whatever is left: slurmstepd and job processes, daemons whose pid
	# file is gone.
	for n in 1 2 3; do
		pids=$(_sl_strays "$dir")
		[ -n "$pids" ] || break
		# shellcheck disable=SC2086
		_sl_kill_wait KILL 30 $pids || :
		all+=" $pids"
	done
	# The daemons' parent is init: give it a moment to reap them, so that
	# a pgrep right after this finds not even a zombie.
	for n in $(seq 20); do
		left=
		for p in $all; do
			[ -e "/proc/$p" ] && left=1
		done
		[ -z "$left" ] && break
		[ "$n" -lt 20 ] && sleep 0.1
	done
	rm -f "$dir/run/slurmctld.pid" "$dir/run/slurmd.pid" "$dir/run/munged.pid"
	[ "${SLURM_CONF:-}" = "$dir/slurm.conf" ] && unset SLURM_CONF

	left=$(_sl_strays "$dir" | tr '\n' ' ')
	if [ -n "$left" ]; then
		echo "slurm_local_stop: processes of $dir still there after SIGKILL: $left" >&2
		return 1
	fi
	return 0
}
