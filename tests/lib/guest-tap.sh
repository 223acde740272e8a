# shellcheck shell=bash
# Host side of guest TAP: boot a guest with pmem-harness, renumber the TAP
# lines it prints into this test file's own stream, and turn a guest that
# failed (hang, panic, short plan, a harness that refused to start it) into
# "not ok" lines instead of silence.
#
#   . tests/lib/guest-tap.sh
#   tap_require PATH...                    -> not ok and exit if one is missing
#   guest_tap LABEL FLAVOUR FS JOBFILE     -> emits TAP, sets GUEST_RESULTS
#   tap_console_expect REGEX               -> a console event this test causes
#   tap_done                               -> prints the plan, exits 0/1
#
# Skips: tap_skip only for what a machine may truly lack (tests/lib/skips
# lists the reasons the suite accepts). What set-up installs or builds is
# required: tap_require fails the test, naming what to run.

TAP_N=0
TAP_FAILED=0
B=${PMEM_BUILD:-build}
RUNS=${PMEM_TEST_RUNS:-$B/test-runs}
mkdir -p "$RUNS"

# Every guest a harness command boots from this test, whatever command
# booted it, reports a kernel WARNING, BUG, Oops or panic on its console
# here (vm/guest_events.c); tap_done fails the test on each one the
# test did not say it causes.
PMEM_GUEST_EVENTS=$(realpath -m "$RUNS/.console-events.$(basename "$0").$$")
export PMEM_GUEST_EVENTS
: >"$PMEM_GUEST_EVENTS"
TAP_CONSOLE_EXPECTED=

tap_ok() { # 0|1 description [file whose last lines say why, on failure]...
	local f
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N $2"
		return 0
	fi
	echo "not ok $TAP_N $2"
	TAP_FAILED=$((TAP_FAILED + 1))
	shift 2
	for f in "$@"; do
		[ -s "$f" ] || continue
		echo "#   last lines of $f:"
		tail -n 8 -- "$f" | sed "s/^/#     /"
	done
	return 0
}

tap_skip() { # description reason
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N $1 # SKIP $2"
}

# How to get a file the suite needs, in one line.
tap_how_to_get() { # path
	case $1 in
	*/kernels/*) echo "make test-kernels" ;;
	*/initramfs*.cpio | */images/*) echo "make images" ;;
	*/plugins/*) echo "make plugins (QEMU 10 and its plugin header: sudo make setup)" ;;
	*/xfstests*) echo "make xfstests-image" ;;
	*) echo "make all" ;;
	esac
}

# Files that make setup, make all, make test-kernels or make images provide:
# one missing is this test's failure, not a skip. Ends the test.
tap_require() { # path...
	local p missing=0
	for p in "$@"; do
		[ -e "$p" ] && continue
		tap_ok 1 "prerequisite $p is missing: run '$(tap_how_to_get "$p")'"
		missing=1
	done
	[ "$missing" -eq 0 ] || tap_done
}

# The console event (a regex on "event<TAB>line") this test causes on purpose.
tap_console_expect() { # regex
	TAP_CONSOLE_EXPECTED=$1
}

# One "not ok" per console event no test asked for (vm/guest_events.c
# writes "event<TAB>run dir<TAB>console line").
tap_console_check() {
	local event dir line
	[ -s "$PMEM_GUEST_EVENTS" ] || return 0
	while IFS=$'\t' read -r event dir line; do
		if [ -n "$TAP_CONSOLE_EXPECTED" ] &&
			[[ "$event	$line" =~ $TAP_CONSOLE_EXPECTED ]]; then
			continue
		fi
		tap_ok 1 "guest kernel $event on the console: \"$line\" (see $dir/console.log)"
	done <"$PMEM_GUEST_EVENTS"
	: >"$PMEM_GUEST_EVENTS"
}

tap_done() {
	tap_console_check
	rm -f "$PMEM_GUEST_EVENTS"
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
	exit
}

# Run JOBFILE in a guest; re-emit its results prefixed with LABEL.
# GUEST_RESULTS holds "ok|not ok<TAB>name" lines for callers that assert on them.
# The guest's numbered results (a program's "ok N") must match its plan;
# results the job itself adds ("ok - name") are not counted against it.
guest_tap() { # label flavour fs jobfile
	local label=$1 flavour=$2 fs=$3 job=$4 out rc plan=0 numbered=0 line name
	out=$RUNS/$label
	rm -rf "$out"
	mkdir -p "$out"
	GUEST_RESULTS=
	# GUEST_RUN_ARGS: more options for pmem-harness run (split on spaces).
	# shellcheck disable=SC2086
	"$B/pmem-harness" run --kernel "$flavour" --fs "$fs" --script "$job" --out "$out" \
		--accel "${ACCEL:-auto}" --quiet ${GUEST_RUN_ARGS:-} 2>"$out/harness.err"
	rc=$?
	touch "$out/guest.log"
	while IFS= read -r line; do
		case $line in
		"1.."*) plan=${line#1..} plan=${plan%% *} ;;
		"ok "* | "not ok "*)
			name=$(echo "$line" | sed -E 's/^(not )?ok [0-9-]* ?//')
			[[ $line =~ ^(not\ )?ok\ [0-9]+ ]] && numbered=$((numbered + 1))
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
	[[ $plan =~ ^[0-9]+$ ]] || plan=0
	if [ "$rc" -ne 0 ]; then
		# 125: the guest failed (vm.json says how); 2: the harness could
		# not start it (no kernel, image, QEMU); other: the job's status.
		tap_ok 1 "$label: guest ran to completion (pmem-harness run exited $rc)"
		sed 's/^/# /' "$out/harness.err"
	elif [ "$plan" -eq 0 ]; then
		tap_ok 1 "$label: guest printed a plan (no '1..N' in $out/guest.log)"
	elif [ "$numbered" -ne "$plan" ]; then
		tap_ok 1 "$label: guest printed $numbered results, planned $plan"
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
