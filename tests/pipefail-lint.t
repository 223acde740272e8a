#!/usr/bin/env bash
# Under set -o pipefail, a pipeline whose reader stops early (head,
# grep -q, grep -m, an awk that exits) kills its writer with
# SIGPIPE when the writer still has output, and the pipeline's status is
# then 141: with set -e the script dies without a word, as
# fetch-qemu-plugin-header.sh did on every fresh machine. Every shell
# script git knows that sets pipefail is checked for such a reader, in a
# pipe on one line or continued from the line before. Read the writer's
# output into a variable (or a file) first, or let the writer stop itself
# (grep -m1 on a file, find -print -quit).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

# The early readers, as an ERE on the text after a '|'.
early='^[[:space:]]*(head([[:space:]]|$)|grep[[:space:]]+(-[A-Za-z]*[qm]|--quiet|--max-count)|awk[[:space:]].*exit|sed[[:space:]]+(-n[[:space:]]+)?.q)'

# Print "file:line: text" for each early reader in FILE (comments skipped).
# An awk program that a pipe feeds and that goes on over several lines is
# followed to its closing quote, for an 'exit' anywhere in it.
early_readers() { # file
	awk -v f="$1" -v re="$early" -v q="'" '
		function quotes(s) { return gsub(/\047/, "", s) }
		# The body of a here-document is data, not pipelines.
		heredoc != "" { if ($0 == heredoc) heredoc = ""; next }
		inawk {
			if ($0 ~ /(^|[^a-z_])exit([^a-z_]|$)/) { print f ":" start ": " first; inawk = 0 }
			else if (quotes($0) % 2) inawk = 0
			next
		}
		/^[[:space:]]*#/ { prev = ""; next }
		{
			line = $0
			if (match(line, "<<-?[[:space:]]*" q "?[A-Za-z_]+" q "?")) {
				heredoc = substr(line, RSTART, RLENGTH)
				sub("^<<-?[[:space:]]*" q "?", "", heredoc); sub(q "$", "", heredoc)
			}
			# Text in double quotes is a message, not a command.
			gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
			# A pipe continued from the previous line counts too.
			if (prev ~ /\|[[:space:]]*\\?[[:space:]]*$/ && line ~ re) { print f ":" NR ": " $0 }
			n = split(line, part, /\|\|/)
			for (i = 1; i <= n; i++) {
				m = split(part[i], seg, /\|/)
				for (j = 2; j <= m; j++) {
					if (seg[j] ~ re) { print f ":" NR ": " $0; break }
					if (seg[j] ~ /^[[:space:]]*awk[[:space:]]/ && quotes(seg[j]) % 2) {
						inawk = 1; start = NR; first = $0
					}
				}
			}
			if (prev ~ /\|[[:space:]]*\\?[[:space:]]*$/ && line ~ /^[[:space:]]*awk[[:space:]]/ && quotes(line) % 2) {
				inawk = 1; start = NR; first = $0
			}
			prev = line
		}' "$1"
}

echo "TAP version 13"
mapfile -t scripts < <(git ls-files -z | xargs -0 grep -l -e 'set -[a-z]*o pipefail' -e 'set -o pipefail' 2>/dev/null)
found=$(for f in "${scripts[@]}"; do early_readers "$f"; done)
echo "# ${#scripts[@]} scripts set pipefail"
[ -z "${found//[[:space:]]/}" ] || while IFS= read -r l; do echo "# early reader: $l"; done <<<"$found"
[ "${#scripts[@]}" -gt 20 ] && [ -z "${found//[[:space:]]/}" ]
tap_ok $? "no pipeline under pipefail ends in a reader that stops early"

# The check itself: the pipelines that broke the header fetch (one line,
# and an awk program over three), one continued on the next line, and
# their fixes. The fixtures spell each pipe PIPE, made a pipe as they are
# written, so that no pipeline of this file is one a reader of it would flag.
sed 's/PIPE/|/g' >"$RUNS/early.sh" <<'SCRIPT'
#!/bin/bash
set -euo pipefail
suite=$(apt-cache policy qemu PIPE awk '/x/ { print; exit }')
SCRIPT
sed 's/PIPE/|/g' >"$RUNS/early2.sh" <<'SCRIPT'
#!/bin/bash
set -euo pipefail
first=$(find / -name x PIPE
	head -n 1)
SCRIPT
sed 's/PIPE/|/g' >"$RUNS/early3.sh" <<'SCRIPT'
#!/bin/bash
set -euo pipefail
suite=$(apt-cache policy "$pkg" 2>/dev/null PIPE awk '
	/^ \*\*\* / { inst = 1; next }
	inst { print; exit }')
SCRIPT
sed 's/PIPE/|/g' >"$RUNS/late.sh" <<'SCRIPT'
#!/bin/bash
set -euo pipefail
p=$(apt-cache policy qemu)
suite=$(awk '/x/ && !n++' <<<"$p")
x=$(grep -m1 y file PIPE cut -d: -f1)
first=$(find / -name x -print -quit)
a PIPEPIPE b
SCRIPT
[ -n "$(early_readers "$RUNS/early.sh")" ] && [ -n "$(early_readers "$RUNS/early2.sh")" ] &&
	[ -n "$(early_readers "$RUNS/early3.sh")" ] &&
	[ -z "$(early_readers "$RUNS/late.sh")" ]
tap_ok $? "the check catches apt-cache policy piped to an awk that exits, a head on a continued line and a multi-line awk that exits, and passes their fixes"
tap_done
