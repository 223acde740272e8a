#!/usr/bin/env bash
# The README and docs/*.md work from a fresh clone: every make command they
# show is one make accepts (make -n: nothing runs, no guest boots), every
# build/pmem-harness command names a subcommand whose --help lists each
# --option used, and every relative link names a file in the tree.
#
# Commands are taken from code blocks (a line starting with make or
# build/pmem-harness, after an optional "$ ", joined over trailing
# backslashes, its "# comment" cut) and from inline code spans of one
# paragraph. Placeholders are made concrete before checking: <run-id> and
# the like become x, [optional parts] are dropped, and a|b takes a.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/guest-tap.sh
. tests/lib/guest-tap.sh

H=$B/pmem-harness
DOCS=${README_DOCS:-README.md docs/*.md}
echo "TAP version 13"

[ -x "$H" ] || make -s "$H" >/dev/null 2>&1
[ -x "$H" ]
tap_ok $? "$H is built"

# Every command of one file, one a line: "FILE<TAB>COMMAND".
commands() { # file
	awk -v f="$1" '
	function emit(c) {
		sub(/^\$ /, "", c)
		sub(/[ \t]+#.*$/, "", c)
		gsub(/[ \t]+/, " ", c)
		sub(/ $/, "", c)
		if (c ~ /^(make|build\/pmem-harness)( |$)/)
			print f "\t" c
	}
	function spans(p,   s, i) {
		while (match(p, /`[^`]+`/)) {
			s = substr(p, RSTART + 1, RLENGTH - 2)
			if (s ~ /^(make|build\/pmem-harness) /)
				emit(s)
			p = substr(p, RSTART + RLENGTH)
		}
	}
	/^```/ { if (incode) { incode = 0 } else { spans(para); para = ""; incode = 1 }; next }
	incode {
		line = cont $0
		if (line ~ /\\$/) { cont = substr(line, 1, length(line) - 1) " "; next }
		cont = ""
		emit(line)
		next
	}
	/^[ \t]*$/ { spans(para); para = ""; next }
	{ para = para " " $0 }
	END { spans(para) }
	' "$1"
}

# A command with its placeholders made concrete.
concrete() { # command
	# shellcheck disable=SC2001 # several expressions, one sed
	sed -E 's/\[[^]]*\]//g; s/<[^>]*>/x/g; s/=([A-Za-z0-9._-]+)\|[A-Za-z0-9.|_-]+/=\1/g; s/\.\.\.//g' <<<"$1"
}

# Split a concrete command into words as sh would, refusing anything that
# would run more than set: a pipe, a redirection, a substitution.
words() { # command -> WORDS
	WORDS=()
	# shellcheck disable=SC2016 # a literal $( is what is refused
	case $1 in
	*'|'* | *'>'* | *'<'* | *';'* | *'&'* | *'$('* | *'`'*) return 1 ;;
	esac
	# shellcheck disable=SC2086
	eval "set -- $1" 2>/dev/null || return 1
	WORDS=("$@")
}

n_make=0 n_harness=0
for f in $DOCS; do
	while IFS=$'\t' read -r file cmd; do
		c=$(concrete "$cmd")
		if ! words "$c"; then
			tap_ok 1 "$file: cannot take apart: $cmd"
			continue
		fi
		if [ "${WORDS[0]}" = make ]; then
			n_make=$((n_make + 1))
			# make -n prints recipes instead of running them, and runs
			# $(MAKE) lines only as make -n again. No make of ours above
			# this one may lend it its variables.
			out=$(env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS timeout 60 make -n "${WORDS[@]:1}" 2>&1 >/dev/null)
			rc=$?
			tap_ok $rc "$file: make -n accepts: $cmd"
			[ $rc -eq 0 ] || tail -n 5 <<<"$out" | sed 's/^/# /'
			continue
		fi
		n_harness=$((n_harness + 1))
		sub=("${WORDS[1]:-}")
		case ${WORDS[1]:-}/${WORDS[2]:-} in
		plan/bench | plan/crashtest | plan/xfstests) sub=(plan "${WORDS[2]}") ;;
		esac
		if [ "${sub[0]}" = --version ] || [ "${sub[0]}" = --help ]; then
			"$H" "${sub[0]}" >/dev/null 2>&1
			tap_ok $? "$file: pmem-harness ${sub[0]} works: $cmd"
			continue
		fi
		help=$("$H" "${sub[@]}" --help 2>/dev/null)
		rc=$?
		tap_ok $rc "$file: pmem-harness ${sub[*]} exists: $cmd"
		[ $rc -eq 0 ] || continue
		missing=
		for w in "${WORDS[@]:2}"; do
			case $w in --[a-z]*) ;; *) continue ;; esac
			opt=${w%%=*}
			grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)" <<<"$help" || missing+=" $opt"
		done
		[ -z "$missing" ]
		tap_ok $? "$file: pmem-harness ${sub[*]} --help lists every option of: $cmd"
		[ -z "$missing" ] || echo "# not in its --help:$missing"
	done < <(commands "$f")
done
[ "$n_make" -gt 0 ] && [ "$n_harness" -gt 0 ]
tap_ok $? "commands found: $n_make make, $n_harness build/pmem-harness"

# Relative links, images too: the file must exist (an #anchor is not checked).
n_links=0
for f in $DOCS; do
	dir=$(dirname "$f")
	while IFS= read -r target; do
		case $target in
		http://* | https://* | mailto:* | '#'*) continue ;;
		esac
		n_links=$((n_links + 1))
		path=${target%%#*}
		[ -e "$dir/$path" ]
		tap_ok $? "$f: link $target resolves"
	done < <(grep -oE '\]\([^) ]+\)' "$f" | sed -E 's/^\]\(//; s/\)$//')
done
[ "$n_links" -gt 0 ]
tap_ok $? "links found: $n_links"
tap_done
