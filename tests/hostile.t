#!/usr/bin/env bash
# The guest is untrusted: make crashtest runs a user's program there, and
# the program may send the host anything. Each case is a program that
# misbehaves on purpose after 40 correct acks:
#  - it acknowledges its last record again: the host refuses the line as a
#    protocol error, stops the guest, keeps the 40 acks it logged and judges
#    the images taken before; the run fails with one line saying so;
#  - it writes output without end: the guest is stopped at its log
#    allowance, the log keeps what came before, and the run still judges the
#    images taken and writes its summary;
#  - it looks for a network: it finds none (the same program fails on a
#    host that has one), and the run's directories are private;
#  - its control port or its QMP socket is shut down under it (the
#    harness's PMEM_FAULT_PORT fault injection): the writer is marked failed
#    with the port named, at once rather than at the run timeout, and the
#    images taken before are judged;
# and a results directory that belongs to another user, or a scenario row
# naming a mode, platform or expectation nothing knows, is refused before
# any guest boots.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/hostile
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"

"$H" crashtest --program tests/fixtures/hostile-ack.c --fs ext4 --checkers 1 --results "$out" --run-id ack \
	>"$out/ack.out" 2>"$out/ack.err"
rc=$?
dir=$out/ack/crash/program__ext4
grep 'broke the ack protocol' "$out/ack.err" | sed 's/^/# /'
row=$(jq -c '.scenarios[0] | {acks, images, verdicts, protocol_error, complete: true}' "$out/ack/crash/summary.json")
echo "# $row"
[ "$rc" -eq 1 ] && [ "$(wc -l <"$dir/acks.log")" -eq 40 ] &&
	jq -e '.scenarios[0] | .acks == 40 and .images > 0 and .verdicts.intact == .images and
		(.protocol_error | test("^\"ack 39 159744 4096\": .*claimed once"))' \
		"$out/ack/crash/summary.json" >/dev/null &&
	grep -q 'PROTOCOL ERROR' "$out/ack.out" &&
	grep -q "crashtest: program/ext4: the guest broke the ack protocol, stopped at 40 acks" "$out/ack.err"
tap_ok $? "a repeated ack is refused: guest stopped, 40 acks kept, earlier images judged intact (rc $rc)"

PMEM_GUEST_LOG_MAX=$((4 << 20)) "$H" crashtest --program tests/fixtures/hostile-flood.c --fs ext4 --checkers 1 \
	--results "$out" --run-id flood >"$out/flood.out" 2>"$out/flood.err"
rc=$?
dir=$out/flood/crash/program__ext4
grep 'did not finish' "$out/flood.err" | sed 's/^/# /'
size=$(stat -c %s "$dir/guest.log")
echo "# guest.log: $size bytes"
[ "$rc" -eq 1 ] && [ "$size" -le $((4 << 20)) ] && [ "$size" -ge $((3 << 20)) ] &&
	jq -e '.complete and .scenarios[0].writer == "flooded" and .scenarios[0].acks == 40 and
		.scenarios[0].images > 0 and .scenarios[0].verdicts.intact == .scenarios[0].images and
		(.scenarios[0].writer_failure | test("flooded"))' \
		"$out/flood/crash/summary.json" >/dev/null &&
	grep -q 'guest flooded its output: more than 4 MiB, stopped' "$out/flood.err"
tap_ok $? "a guest flooding its output is stopped at 4 MiB; its images judged, the run completes, failed (rc $rc)"
# The network check must be able to fail: on this host it finds eth0 & co.
host_ifs=$(find /sys/class/net -mindepth 1 -maxdepth 1 ! -name lo -printf '%f ' 2>/dev/null)
if [ -n "$host_ifs" ]; then
	program_static "$out/hostile-net" tests/fixtures/hostile-net.c &&
		! "$out/hostile-net" 2>"$out/net-host.err" && grep -q 'network interface' "$out/net-host.err"
	tap_ok $? "on this host (interfaces: $host_ifs) the network check fails and names them"
else
	tap_skip "the network check fails where there is a network" "this host has only lo"
fi

"$H" crashtest --program tests/fixtures/hostile-net.c --fs ext4 --checkers 1 --results "$out" --run-id net \
	>"$out/net.out" 2>"$out/net.err"
rc=$?
dir=$out/net/crash/program__ext4
grep 'hostile-net' "$dir/guest.log" | sed 's/^/# guest: /'
modes=$(stat -c '%a' "$out/net" "$out/net/crash" "$dir" "$dir/images" | sort -u | tr '\n' ' ')
echo "# run directory modes: $modes"
[ "$rc" -eq 0 ] && ! grep -q 'network interface\|route to' "$dir/guest.log" &&
	jq -e '.scenarios[0] | .acks == 8 and .images > 0 and .verdicts.intact == .images' \
		"$out/net/crash/summary.json" >/dev/null && [ "$modes" = "700 " ]
tap_ok $? "a guest has no network interface and no route out; the run's directories are 0700 (rc $rc)"

# A port lost under a running guest: the control port (the guest can no
# longer ack) and QMP (the host can no longer pause it for an image).
for port in ctl:control qmp:QMP; do
	p=${port%%:*} name=${port#*:}
	t0=$(date +%s)
	PMEM_FAULT_PORT=$p:100:program__ext4 "$H" crashtest --program tests/fixtures/ack-late.c --fs ext4 --checkers 1 \
		--results "$out" --run-id "port-$p" >"$out/port-$p.out" 2>"$out/port-$p.err"
	rc=$?
	secs=$(($(date +%s) - t0))
	row=$(jq -c '.scenarios[0] | {writer, writer_failure, acks, images, intact: .verdicts.intact}' \
		"$out/port-$p/crash/summary.json")
	echo "# $row; $secs s"
	[ "$rc" -eq 1 ] && [ "$secs" -lt 300 ] && grep -q 'WRITER FAILED' "$out/port-$p.out" &&
		jq -e --arg name "$name" '.scenarios[0] | .writer == "port-closed" and
			(.writer_failure | contains("the \($name)")) and .verdicts.intact == .images' \
			"$out/port-$p/crash/summary.json" >/dev/null
	tap_ok $? "the $name port shut under a running writer: failed at once ($secs s) with the port named (rc $rc)"
done

# Another user's results: refused in one line, nothing in them touched.
theirs=$out/theirs
mkdir -p "$theirs/r/crash" && echo '{}' >"$theirs/r/crash/summary.json" && chown -R 65534 "$theirs/r"
before=$(find "$theirs" -printf '%p %u %m %s\n' | sort | md5sum)
"$H" crashtest --program tests/fixtures/hostile-net.c --fs ext4 --accel tcg --checkers 1 --results "$theirs" --run-id r \
	>/dev/null 2>"$out/theirs.err"
rc=$?
sed 's/^/# /' "$out/theirs.err"
[ "$rc" -eq 2 ] && [ "$(wc -l <"$out/theirs.err")" -eq 1 ] && grep -q 'is owned by uid 65534, not by you' "$out/theirs.err" &&
	[ "$(find "$theirs" -printf '%p %u %m %s\n' | sort | md5sum)" = "$before" ]
tap_ok $? "a run directory owned by another user is refused in one line, left untouched (rc $rc)"

# A run id is a directory name: one that climbs out of --results, or carries
# a slash, a newline or shell characters, is refused before anything is made.
ids=$out/ids
mkdir -p "$ids"
bad=0
for id in '../escape' 'a/b' '.hidden' 'two words' $'new\nline' 'x;rm' "$(printf 'x%.0s' $(seq 64))"; do
	for cmd in crashtest bench; do
		"$H" "$cmd" --results "$ids/r" --run-id "$id" >/dev/null 2>"$ids/err"
		rc=$?
		{ [ "$rc" -eq 2 ] && grep -q 'cannot name a directory' "$ids/err" && [ ! -e "$ids/r" ] &&
			[ ! -e "$ids/escape" ]; } || { bad=$((bad + 1)); echo "# $cmd accepted run id '$id' (rc $rc)"; }
	done
done
[ "$bad" -eq 0 ]
tap_ok $? "run ids that are not safe directory names are refused by crashtest and bench, nothing made"

# A scenario row with a mode, platform or expectation nothing knows would
# run as something else: the table is refused at its line, before any guest.
rows=$out/rows
bad=0
for edit in 's/^(sync-clwb +[^ ]+ +)sync /\1snyc /' 's/^(sync-clwb +[^ ]+ +sync +)eadr /\1eADR /' \
	's/^(sync-clwb +[^ ]+ +sync +eadr +)intact/\1intakt/'; do
	rm -rf "$rows" && mkdir -p "$rows/crash-inject"
	sed -E "$edit" crash-inject/scenarios >"$rows/crash-inject/scenarios"
	cmp -s crash-inject/scenarios "$rows/crash-inject/scenarios" && { bad=$((bad + 1)); echo "# '$edit' changed no row"; }
	ln -s "$(cd "$B" && pwd)" "$rows/build"
	ln -s "$PWD/workloads" "$rows/workloads"
	(cd "$rows" && "$H" crashtest --scenarios sync-clwb --results "$rows/r" >/dev/null 2>"$rows/err")
	rc=$?
	{ [ "$rc" -eq 2 ] && [ "$(wc -l <"$rows/err")" -eq 1 ] &&
		grep -Eq '^crashtest: crash-inject/scenarios line [0-9]+: scenario sync-clwb: unknown' "$rows/err" &&
		[ ! -e "$rows/r" ]; } || { bad=$((bad + 1)); echo "# '$edit' was not refused (rc $rc): $(cat "$rows/err")"; }
done
[ "$bad" -eq 0 ]
tap_ok $? "a scenario row with an unknown mode, platform or expectation is refused at its line, nothing run"
tap_done
