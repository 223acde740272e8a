# shellcheck shell=bash
# Host side of guest TAP: boot a guest with pmem-harness, renumber the TAP
# lines it prints into this test file's own stream, and turn a guest that
# failed (hang, panic, short plan) into "not ok" lines instead of silence.
#
#   . tests/lib/guest-tap.sh
#   guest_tap LABEL FLAVOUR FS JOBFILE     -> emits TAP, sets GUEST_RESULTS
#   tap_done                               -> prints the plan, exits 0/1

TAP_N=0
TAP_FAILED=0
B=${PMEM_BUILD:-build}
RUNS=${PMEM_TEST_RUNS:-$B/test-runs}
mkdir -p "$RUNS"

tap_ok() { # 0|1 description
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N $2"
	else
		echo "not ok $TAP_N $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

tap_skip() { # description reason
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N $1 # SKIP $2"
}

tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
	exit
}

# Run JOBFILE in a guest; re-emit its results prefixed with LABEL.
# GUEST_RESULTS holds "ok|not ok<TAB>name" lines for callers that assert on them.
guest_tap() { # label flavour fs jobfile
	local label=$1 flavour=$2 fs=$3 job=$4 out rc plan=0 seen=0 line name
	out=$RUNS/$label
	rm -rf "$out"
	mkdir -p "$out"
	GUEST_RESULTS=
	# GUEST_RUN_ARGS: more options for pmem-harness run (split on spaces).
	# shellcheck disable=SC2086
	"$B/pmem-harness" run --kernel "$flavour" --fs "$fs" --script "$job" --out "$out" \
		--accel "${ACCEL:-auto}" --quiet ${GUEST_RUN_ARGS:-} 2>"$out/harness.err"
	rc=$?
	while IFS= read -r line; do
		case $line in
		"1.."*) plan=${line#1..} ;;
		"ok "* | "not ok "*)
			seen=$((seen + 1))
			name=$(echo "$line" | sed -E 's/^(not )?ok [0-9-]* ?//')
			case $line in
			"not ok"*) GUEST_RESULTS+="not ok	$name"$'\n' ;;
			*"# SKIP"*) GUEST_RESULTS+="skip	${name%% # SKIP*}"$'\n' ;;
			*) GUEST_RESULTS+="ok	$name"$'\n' ;;
			esac
			[ "${GUEST_TAP_EMIT:-1}" = 1 ] || continue
			case $line in
			"not ok"*) tap_ok 1 "$label: $name" ;;
			*"# SKIP"*) tap_skip "$label: ${name%% # SKIP*}" "${name#*# SKIP }" ;;
			*) tap_ok 0 "$label: $name" ;;
			esac ;;
		"#"*) echo "$line" ;;
		esac
	done <"$out/guest.log"
	if [ "$rc" -eq 125 ]; then
		tap_ok 1 "$label: guest ran to completion"
		sed 's/^/# /' "$out/harness.err"
	elif [ "$plan" -gt 0 ] && [ "$seen" -lt "$plan" ]; then
		tap_ok 1 "$label: guest printed $seen results, planned $plan or more"
	fi
	return 0
}

# Build a static program by hand as the harness builds one: flags, helpers
# and static linking from workloads/user-program.mk, read by make.
program_static() { # out source...
	local out=$1 words
	shift
	# shellcheck disable=SC2016 # $(...) is make's, expanded by make
	words=$(make -s --no-print-directory -f workloads/user-program.mk \
		--eval 'words: ; @echo $(PROGRAM_CFLAGS) $(PROGRAM_STATIC) $(PROGRAM_INCLUDE) $(PROGRAM_HELPERS)' words) ||
		return 1
	# shellcheck disable=SC2086 # make's words, split as make split them
	${CC:-gcc} $words -o "$out" "$@"
}
