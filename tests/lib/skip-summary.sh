#!/usr/bin/env bash
# Count the skips of a prove -v log by the classes of tests/lib/skips, in
# one line; with CI=true, fail on a skip CI may not take.
#
#   tests/lib/skip-summary.sh LOG
#
# Skips are "ok N name # SKIP reason" lines and whole files skipped
# ("1..0 # SKIP reason"). Exit 1 only when CI=true and a skip is
# unexplained or of a class CI may not take; the offending lines are listed.
set -euo pipefail
log=$1
table=$(dirname "$0")/skips
[ -r "$log" ] || { echo "skip-summary: no log $log" >&2; exit 1; }

# awk reads the whole log and the whole table: nothing here stops a writer.
awk -v ci="${CI:-}" '
	FNR == NR {
		if ($0 ~ /^[ \t]*(#|$)/) next
		n++; cls[n] = $1; ok_ci[n] = $2
		re = $0; sub(/^[^ \t]+[ \t]+[^ \t]+[ \t]+/, "", re); pat[n] = re
		next
	}
	/^[ \t]*(ok [0-9]+ .*|1\.\.0) # SKIP/ {
		reason = $0; sub(/.*# SKIP[ \t]*/, "", reason)
		c = "unexplained"; allowed = 0
		for (i = 1; i <= n; i++)
			if (reason ~ pat[i]) { c = cls[i]; allowed = (ok_ci[i] == "yes"); break }
		count[c]++; total++
		if (!allowed) bad[++nbad] = c ": " $0
	}
	END {
		if (!total) { print "make test: no skips"; exit 0 }
		line = ""
		for (c in count) line = line (line ? ", " : "") c " " count[c]
		printf "make test: %d skip%s: %s\n", total, total == 1 ? "" : "s", line
		if (ci == "true" && nbad) {
			printf "make test: CI=true takes skips only for what a machine may lack (tests/lib/skips); %d other%s:\n", nbad, nbad == 1 ? "" : "s"
			for (i = 1; i <= nbad; i++) print "  " bad[i]
			exit 1
		}
	}' "$table" "$log"
