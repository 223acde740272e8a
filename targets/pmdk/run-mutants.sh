#!/usr/bin/env bash
# Crash-test each PMDK mutant (targets/pmdk/mutants) black-box under the ADR
# model, and say which ones the tester catches and whether it names the
# line the mutant changed.
#
#   targets/pmdk/run-mutants.sh [ID...]      every mutant when none is given
#
# Each mutant is built by build.sh --mutant ID (cached), then run as
#   PROGRAM='map-driver MAP pool.obj N'  RECOVER='map-check MAP pool.obj'
# (the keys it printed must be found after pmemobj_open's recovery; for a
# mutant on a removal path, map-driver removes them all again, and a key
# printed as removed must be gone)
# MAP is the map its file implements, btree for libpmemobj's own files.
# Caught: at least one crash bug (an ADR image fails where its eADR twin
# recovers, or an eADR image where the clean exit does). Named: a line a
# crash bug needs (its suspects, crash_judge.c) was last stored at the
# mutated file:line; function: in the function around it.
#
# Environment: PMEM_MUTANT_INSERTS (100), PMEM_MUTANT_FS (the quick default
# of vm-images/filesystems), FENCE_POINTS (24), SUBSETS (4), SEED (1), RUN_ID;
# results in results/runs/<run-id>/ (one crashtest run per mutant, and
# mutants.json, mutants.txt).
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${PMEM_BUILD:-build}
inserts=${PMEM_MUTANT_INSERTS:-100}
[ -x "$build/pmem-harness" ] || { echo "mutants: no $build/pmem-harness: run 'make'" >&2; exit 1; }
fs=${PMEM_MUTANT_FS:-$("$build/pmem-harness" filesystems --default quick)}
run_id=${RUN_ID:-$(date +%Y%m%d-%H%M%S)-mutants}
out=results/runs/$run_id
mkdir -p "$out"

if [ $# -gt 0 ]; then
	ids=("$@")
else
	mapfile -t ids < <(targets/pmdk/mutants.sh --list)
fi

# The map a mutated file implements; libpmemobj's own files run under btree.
map_of() { # file
	case $1 in
	*/btree_map.c) echo btree ;;
	*/ctree_map.c) echo ctree ;;
	*/rbtree_map.c) echo rbtree ;;
	*/hashmap_atomic.c) echo hashmap_atomic ;;
	*/hashmap_tx.c) echo hashmap_tx ;;
	*/hashmap_rp.c) echo hashmap_rp ;;
	*/skiplist_map.c) echo skiplist ;;
	*) echo btree ;;
	esac
}

# The name of the function around line N of a C file: the last line before
# it that starts a definition at column 0.
function_at() { # file line
	awk -v n="$2" 'NR > n { exit } /^[a-z_][a-z_0-9 \t\*]*\(/ || /^[a-z_][a-z_0-9]*\(/ {
		s = $0; sub(/\(.*/, "", s); k = split(s, w, /[ \t\*]+/); f = w[k] } END { print f }' "$1"
}

# The unmutated source, where each mutant's line is found.
base_dir=$(targets/pmdk/build.sh)
echo "[" >"$out/mutants.json"
sep=
printf '%-26s %-15s %6s %9s %7s %8s  %s\n' mutant map images "bugs a/e" caught named "first suspect of its crash bugs" |
	tee "$out/mutants.txt"
for id in "${ids[@]}"; do
	row=$(grep -E "^${id}[[:space:]]*\|" targets/pmdk/mutants || true)
	[ -n "$row" ] || { echo "mutants: no mutant '$id' (targets/pmdk/mutants.sh --list)" >&2; exit 2; }
	file=$(cut -d'|' -f2 <<<"$row" | xargs)
	what=$(cut -d'|' -f5 <<<"$row")
	map=$(map_of "$file")
	if ! dir=$(targets/pmdk/build.sh --mutant "$id" 2>"$out/$id.build.err"); then
		echo "mutants: $id did not build (see $out/$id.build.err)" >&2
		printf '%-26s %-15s %s\n' "$id" "$map" "BUILD FAILED" | tee -a "$out/mutants.txt"
		continue
	fi
	find=$(cut -d'|' -f3 <<<"$row" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
	line=$(FIND="$find" awk '{ s = $0; sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s) }
		s == ENVIRON["FIND"] { n = NR } END { print n }' "$base_dir/pmdk/$file")
	src=$base_dir/pmdk/$file
	func=
	if [ -n "$line" ] && [ -f "$src" ]; then
		func=$(function_at "$src" "$line")
	fi
	prog="$dir/bin/map-driver $map pool.obj $inserts" rec="$dir/bin/map-check $map pool.obj"
	# A removal path: every key inserted, then removed again.
	[[ $what != *remov* ]] || prog+=" remove"
	rc=0
	"$build/pmem-harness" crashtest --program "$prog" --recover "$rec" --platform adr --fs "$fs" \
		--fence-points "${FENCE_POINTS:-24}" --subsets "${SUBSETS:-4}" --seed "${SEED:-1}" \
		--results "$out" --run-id "$id" >"$out/$id.out" 2>"$out/$id.err" || rc=$?
	summary=$out/$id/crash/summary.json
	images=$(jq '.scenarios[0].images // 0' "$summary" 2>/dev/null || echo 0)
	bugs=$(jq '.scenarios[0].blackbox.crash_bugs // 0' "$summary" 2>/dev/null || echo 0)
	# Crash bugs by lost lines (an ADR image failing where its eADR twin
	# recovers) / by the crash itself (an eADR image failing where the clean
	# exit recovers).
	by=$(jq -r '.scenarios[0].blackbox.crash_bugs_by // {} | "\(.adr // 0)/\(.eadr // 0)"' "$summary" 2>/dev/null ||
		echo 0/0)
	by=$(jq -r '.scenarios[0].blackbox.crash_bugs_by // {} | "\(.adr // 0)/\(.eadr // 0)"' "$summary" 2>/dev/null || echo 0/0)
	target=$(jq -r '.scenarios[0].blackbox.target_problem // empty' "$summary" 2>/dev/null || true)
	sites=$(jq -r 'select(.crash_bug == true) | (.suspect_sites // .dropped_sites)[]?.site' "$out/$id/crash/program__$fs"/image-*.json \
		2>/dev/null | sort | uniq -c | sort -rn | awk '{ $1 = ""; print substr($0, 2) }' || true)
	base=$(basename "$file")
	named=no
	if [ -n "$line" ] && grep -q "^$base:$line " <<<"$sites"; then
		named=line
	elif [ -n "$func" ] && grep -q "($func)" <<<"$sites"; then
		named=function
	fi
	caught=no
	[ "$bugs" -gt 0 ] && caught=yes
	[ -z "$target" ] || caught="no: breaks without a crash"
	first=$(head -n 1 <<<"$sites")
	printf '%-26s %-15s %6s %9s %7s %8s  %s\n' "$id" "$map" "$images" "$by" "${caught%%:*}" "$named" \
		"${first:--}" | tee -a "$out/mutants.txt"
	jq -n --arg id "$id" --arg file "$file" --arg line "$line" --arg func "$func" --arg map "$map" \
		--arg program "$prog" --arg recover "$rec" --argjson images "$images" --argjson bugs "$bugs" --arg by "$by" \
		--arg caught "$caught" --arg named "$named" --arg sites "$sites" --arg what "$what" --argjson rc "$rc" \
		'{id: $id, file: $file, line: $line, function: $func, map: $map, what: $what, program: $program,
		  recover: $recover, images: $images, crash_bugs: $bugs, adr_eadr: $by, caught: $caught, named: $named,
		  sites: ($sites | split("\n") | map(select(. != ""))), crashtest_exit: $rc}' >"$out/$id.json"
	{ printf '%s' "$sep"; cat "$out/$id.json"; } >>"$out/mutants.json"
	sep=,
done
echo "]" >>"$out/mutants.json"
total=$(jq length "$out/mutants.json")
caught=$(jq '[.[] | select(.caught == "yes")] | length' "$out/mutants.json")
named=$(jq '[.[] | select(.caught == "yes" and .named == "line")] | length' "$out/mutants.json")
func=$(jq '[.[] | select(.caught == "yes" and .named == "function")] | length' "$out/mutants.json")
echo "mutants: $caught of $total caught ($named name the mutated line, $func more its function); $out/mutants.json" |
	tee -a "$out/mutants.txt"
