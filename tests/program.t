#!/usr/bin/env bash
# make crashtest with programs that are not one C file built here:
#  - the ack protocol from anything: pmem-ack refuses malformed numbers;
#    libpmemack.a and pmem-ack.h link into a static C++ program;
#  - a #!/bin/sh PROGRAM that writes with dd and acks with pmem-ack, checked
#    by a #!/bin/sh CHECK: every eADR crash image intact; the same script
#    acking before it writes is caught;
#  - a C++ source as PROGRAM, a C source at a path with a quote and a
#    space, the same C++ built by hand against libpmemack.a, and a Rust
#    program linking it: all intact;
#  - PMDK: examples/pmemobj/counter.c (records in libpmemobj transactions,
#    acked after commit) keeps every image consistent by pmempool check and
#    its invariant, under eADR and ADR; its twin counter-notx.c (the count
#    stored outside the transaction, never persisted) is missed by eADR,
#    which keeps every executed store, and caught under ADR, traced to the
#    store of the count. counter-check.c is tried on the host first.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
out=$RUNS/program
rm -rf "$out"
mkdir -p "$out"
echo "TAP version 13"

# --- On the host: no guest needed. ---

"$B/guest/pmem-ack" 1 -2 4096 2>"$out/ack-sign.err"
r1=$?
"$B/guest/pmem-ack" 1 0x10 4096 2>/dev/null
r2=$?
"$B/guest/pmem-ack" 1 0 0 2>/dev/null
r3=$?
"$B/guest/pmem-ack" 1 0 4096 2>"$out/ack-noport.err"
r4=$?
[ "$r1" -eq 2 ] && [ "$r2" -eq 2 ] && [ "$r3" -eq 2 ] && [ "$r4" -eq 1 ] &&
	grep -q "OFF '-2' is not a decimal number" "$out/ack-sign.err" &&
	grep -q 'no virtio-serial port named pmem.ctl' "$out/ack-noport.err"
tap_ok $? "pmem-ack refuses a sign, hex and length 0 (exit 2); outside a guest it fails naming the port (exit 1)"

syms=$(nm "$B/libpmemack.a" 2>/dev/null | awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')
echo "# libpmemack.a: $syms"
g++ -static -O2 -Wall -Wextra -Werror -I"$B/include" -o "$out/ack-cxx.static" tests/fixtures/ack-cxx.cc \
	"$B/libpmemack.a" 2>"$out/ack-cxx.err"
rc=$?
[ "$rc" -eq 0 ] && [[ $syms == *"ack "*"ack_at "*"ack_close "*"ack_open "* ]] &&
	[[ $(file "$out/ack-cxx.static") == *"statically linked"* ]]
tap_ok $? "pmem-ack.h compiles as C++ and libpmemack.a links into a static g++ program"

# counter-check.c against pools made by pmempool: pmempool check and the
# invariant each answer with their own exit status.
gcc -std=gnu11 -O2 -Iworkloads -o "$out/counter-check" examples/pmemobj/counter-check.c -lpmemobj &&
	mkdir -p "$out/pool" && pmempool create --layout pmem-aware-counter obj "$out/pool/pool"
rc=$?
(cd "$out/pool" && PMEM_ACKED=0 ../counter-check >/dev/null 2>&1)
c0=$?
(cd "$out/pool" && PMEM_ACKED=3 ../counter-check >/dev/null 2>&1)
c3=$?
dd if=/dev/zero of="$out/pool/pool" bs=4096 count=1 conv=notrunc status=none
(cd "$out/pool" && PMEM_ACKED=3 ../counter-check >wiped.err 2>&1)
cw=$?
echo "# counter-check on the host: empty pool, 0 acked: $c0; 3 acked: $c3; header wiped, 3 acked: $cw"
[ "$rc" -eq 0 ] && [ "$c0" -eq 0 ] && [ "$c3" -eq 4 ] && [ "$cw" -eq 2 ] &&
	grep -q 'pmempool check pool: the pool is not consistent' "$out/pool/wiped.err"
tap_ok $? "counter-check: an empty pool holds no promise, 3 acks and no root (exit 4), a wiped header fails pmempool check (exit 2)"

# --- In guests. ---

guest_tests=("a #!/bin/sh program acked with pmem-ack: every eADR image intact"
	"a #!/bin/sh program that acks before it writes is caught"
	"a C++ source as PROGRAM: every image intact"
	"a C source at a path with a quote and a space as PROGRAM: every image intact"
	"a C++ binary built against libpmemack.a: every image intact"
	"a Rust program linking libpmemack.a: every image intact"
	"pmemobj counter, eADR: every image consistent by pmempool check and its invariant"
	"pmemobj twin (count outside the transaction), eADR: missed, every image intact"
	"pmemobj counter, ADR: every image consistent"
	"pmemobj twin, ADR: caught by the invariant, traced to the store of the count")
tap_require "$B/kernels/6.1-aware/bzImage" "$B/initramfs-crash.cpio" "$B/images/ext4.img" \
	"$B/plugins/adr-cache.so"

# crash ID ARGS...: one crashtest on ext4; RC, N (images), INTACT, LOST, DIR.
crash() {
	local id=$1 s
	shift
	"$H" crashtest --fs ext4 --results "$out" --run-id "$id" "$@" >"$out/$id.out" 2>"$out/$id.err"
	RC=$?
	s=$out/$id/crash/summary.json
	DIR=$out/$id/crash/program__ext4
	N=$(jq '.scenarios[0].images // 0' "$s" 2>/dev/null || echo 0)
	INTACT=$(jq '.scenarios[0].verdicts.intact // 0' "$s" 2>/dev/null || echo 0)
	LOST=$(jq '.scenarios[0].verdicts.lost // 0' "$s" 2>/dev/null || echo 0)
	echo "# $id: $(grep -E '^ *program ' "$out/$id.out" | tr -s ' ')"
	[ "$RC" -le 1 ] || sed 's/^/# /' "$out/$id.err" | tail -n 5
}

# Every image was judged by the user's checker, which found it consistent.
all_checked() {
	[ "$(jq -s 'all(.user_check_status == 0)' "$DIR"/image-*.json 2>/dev/null)" = true ]
}

all_intact() { # description
	[ "$RC" -eq 0 ] && [ "$N" -gt 0 ] && [ "$INTACT" = "$N" ] && all_checked
	tap_ok $? "$1 ($INTACT of $N)"
}

crash script --program tests/fixtures/ack-script.sh --check tests/fixtures/ack-script-check.sh
all_intact "${guest_tests[0]}"

crash script-early --program tests/fixtures/ack-script-early.sh --check tests/fixtures/ack-script-check.sh
[ "$RC" -eq 1 ] && [ "$LOST" -gt 0 ]
tap_ok $? "${guest_tests[1]} ($LOST of $N images lost)"

crash cxx --program tests/fixtures/ack-cxx.cc --cflags "-I$B/include" --check tests/fixtures/ack-script-check.sh
all_intact "${guest_tests[2]}"

# The compile line is an argv, no longer a string for sh that refused a quote.
odd="$out/it's here"
mkdir -p "$odd" && cp tests/fixtures/ack-late.c "$odd/ack late.c"
crash odd-path --program "$odd/ack late.c"
[ "$RC" -eq 0 ] && [ "$N" -gt 0 ] && [ "$INTACT" = "$N" ]
tap_ok $? "${guest_tests[3]} ($INTACT of $N)"

crash cxx-static --program "$out/ack-cxx.static" --check tests/fixtures/ack-script-check.sh
all_intact "${guest_tests[4]}"

if command -v rustc >/dev/null; then
	rustc -O -C target-feature=+crt-static -L "$B" -o "$out/ack-rs" tests/fixtures/ack-rs.rs 2>"$out/ack-rs.err"
	crash rust --program "$out/ack-rs" --check tests/fixtures/ack-script-check.sh
	all_intact "${guest_tests[5]}"
else
	tap_ok 1 "${guest_tests[5]}: no rustc: run 'sudo make setup' (Debian's rustc)"
fi

counter=(--check examples/pmemobj/counter-check.c --ldlibs -lpmemobj)
crash counter --program examples/pmemobj/counter.c "${counter[@]}"
all_intact "${guest_tests[6]}"

crash notx-eadr --program examples/pmemobj/counter-notx.c "${counter[@]}"
all_intact "${guest_tests[7]}"

crash counter-adr --program examples/pmemobj/counter.c "${counter[@]}" --platform adr --subsets 4
all_intact "${guest_tests[8]}"

# The twin's losses: the invariant's exit status (1), not pmempool's, and
# the store the model names as never written back is the count's line, by
# file:line (the program is a PIE, loaded at its unrandomised base: the
# harness turns ASLR off and symbolises it there).
crash notx-adr --program examples/pmemobj/counter-notx.c "${counter[@]}" --platform adr --subsets 4
by=$(jq -s -c '[.[] | select(.verdict == "lost") | .user_check_status] | unique' "$DIR"/image-*.json 2>/dev/null)
want=$(grep -n 'the bug' examples/pmemobj/counter-notx.c | cut -d: -f1)
sites=$(jq -r 'select(.verdict == "lost") | .dropped_sites[]? | select(.why == "never written back") | .site' \
	"$DIR"/image-*.json 2>/dev/null | sort -u | tr '\n' ';')
echo "# lost images' checker exit statuses: $by; program stores never written back: $sites"
[ "$RC" -eq 1 ] && [ "$LOST" -gt 0 ] && [ "$by" = "[1]" ] && [[ $want =~ ^[0-9]+$ && ";$sites" == *";counter-notx.c:$want ("* ]]
tap_ok $? "${guest_tests[9]} ($LOST of $N images lost)"

tap_done
