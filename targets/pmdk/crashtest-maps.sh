#!/usr/bin/env bash
# PMDK's example maps crash-tested black-box, each map on each filesystem,
# with the speed of each run: the full run of `make crashtest-pmdk`.
#
#   targets/pmdk/crashtest-maps.sh data_store|map-driver
#
# data_store: PROGRAM='data_store MAP pool.obj N', RECOVER the same with 1
#   (it recovers the pool and, for the trees and the skiplist, destroys the
#   map it finds); the hash maps have no destroy (data_store exits 1 on a
#   second run), so their RECOVER is map-check, which opens the pool and
#   checks the map through the example's own API.
# map-driver: PROGRAM='map-driver MAP pool.obj N', RECOVER='map-check MAP
#   pool.obj': every key printed before the crash must be found.
#
# Environment: MAPS (all seven), FS (the program defaults of
# vm-images/filesystems), PMEM_MAP_INSERTS (200), FENCE_POINTS (32), SUBSETS
# (8), PLATFORM (adr), SEED (1), RUN_ID; the build/pmdk that make pmdk made.
# One crashtest run per map and filesystem under results/runs/<run-id>/, and
# maps.txt, maps.json beside them.
set -euo pipefail
cd "$(dirname "$0")/../.."

what=${1:-}
case $what in
data_store | map-driver) ;;
*) echo "usage: targets/pmdk/crashtest-maps.sh data_store|map-driver" >&2; exit 2 ;;
esac
build=${PMEM_BUILD:-build}
bin=$build/pmdk/bin
[ -x "$bin/data_store" ] || { echo "maps: no $bin/data_store: run 'make pmdk' (PMDK=<checkout>)" >&2; exit 1; }
[ -x "$build/pmem-harness" ] || { echo "maps: no $build/pmem-harness: run 'make'" >&2; exit 1; }
fss=${FS:-$("$build/pmem-harness" filesystems --default program)}
maps=${MAPS:-ctree btree rbtree hashmap_atomic hashmap_tx hashmap_rp skiplist}
inserts=${PMEM_MAP_INSERTS:-200}
run_id=${RUN_ID:-$(date +%Y%m%d-%H%M%S)-$what}
out=results/runs/$run_id
mkdir -p "$out"
echo "maps: $(grep -E '^(pmdk_version|source|mutant)=' "$build/pmdk/info" | tr '\n' ' ')" | tee "$out/maps.txt"
printf '%-15s %-5s %6s %7s %9s %9s %8s %8s %9s %9s\n' map fs points images recovered "bugs a/e" "no-crash" seconds \
	"images/s" "checked/s" | tee -a "$out/maps.txt"
echo "[" >"$out/maps.json"
sep='' fail=0
for fs in $fss; do
	for map in $maps; do
		if [ "$what" = map-driver ]; then
			prog="$bin/map-driver $map pool.obj $inserts" rec="$bin/map-check $map pool.obj"
		else
			prog="$bin/data_store $map pool.obj $inserts" rec="$bin/data_store $map pool.obj 1"
			case $map in hashmap_*) rec="$bin/map-check $map pool.obj" ;; esac
		fi
		id=$map-$fs
		t0=$(date +%s.%N)
		rc=0
		"$build/pmem-harness" crashtest --program "$prog" --recover "$rec" --platform "${PLATFORM:-adr}" \
			--fs "$fs" --fence-points "${FENCE_POINTS:-32}" --subsets "${SUBSETS:-8}" --seed "${SEED:-1}" \
			--results "$out" --run-id "$id" >"$out/$id.out" 2>"$out/$id.err" || rc=$?
		t1=$(date +%s.%N)
		row=$(jq -c '.scenarios[0] // {}' "$out/$id/crash/summary.json" 2>/dev/null || echo '{}')
		[ "$row" != '{}' ] || { echo "maps: $id did not finish (see $out/$id.err)" >&2; fail=1; continue; }
		[ "$rc" -eq 0 ] || fail=1
		jq -r --arg map "$map" --arg fs "$fs" --argjson wall "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
			[$map, $fs, (.model.points // 0), .images, (.verdicts.recovered // 0),
			 "\(.blackbox.crash_bugs_by.adr // 0)/\(.blackbox.crash_bugs_by.eadr // 0)",
			 (.blackbox.fail_without_crash // 0), ($wall | floor),
			 (.images / $wall * 100 | floor / 100),
			 ((.images - .deduplicated) / (if .check_seconds > 0 then .check_seconds else 1 end) * 100 | floor / 100)]
			| @tsv' <<<"$row" | awk -F'\t' '{ printf "%-15s %-5s %6s %7s %9s %9s %8s %8s %9s %9s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' |
			tee -a "$out/maps.txt"
		jq -c --arg map "$map" --arg fs "$fs" --arg program "$prog" --arg recover "$rec" \
			--argjson wall "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
			'{map: $map, fs: $fs, program: $program, recover: $recover, wall_seconds: $wall, images: .images,
			  verdicts: .verdicts, blackbox: .blackbox, points: .model.points_by_kind,
			  check_seconds: .check_seconds, deduplicated: .deduplicated}' <<<"$row" >"$out/$id.json"
		{ printf '%s' "$sep"; cat "$out/$id.json"; } >>"$out/maps.json"
		sep=,
	done
done
echo "]" >>"$out/maps.json"
jq -r '([.[].images] | add) as $i | ([.[].wall_seconds] | add) as $w |
	"maps: \(length) runs, \($i) images, \([.[].blackbox.crash_bugs] | add) crash bugs in \($w | floor) s: \($i / $w * 100 | floor / 100) images/s end to end, under TCG"' \
	"$out/maps.json" 2>/dev/null | tee -a "$out/maps.txt" || true
echo "maps: results in $out" >&2
exit "$fail"
