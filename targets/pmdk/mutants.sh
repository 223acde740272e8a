#!/usr/bin/env bash
# The mutant table, targets/pmdk/mutants: list its ids, or check that every
# row still applies to PMDK's source without building anything.
#
#   targets/pmdk/mutants.sh --list     one id a line
#   targets/pmdk/mutants.sh --check    every row well formed, its id unique, its
#                                      line found exactly once in its file
#
# The source is the one build.sh builds (PMDK=, PMDK_DEBSRC= or Debian's
# source package, unpacked once into the cache). Exit status: 0 all good,
# 1 a row that does not apply (one line each on stderr), 2 usage.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=vm-images/lib-debsrc.sh
. "$here/../../vm-images/lib-debsrc.sh"
DEBSRC_SELF=targets/pmdk/mutants.sh # read by lib-debsrc.sh
export DEBSRC_SELF
# shellcheck source=targets/pmdk/lib.sh
. "$here/lib.sh"

rows=$(mutant_rows)

case ${1:-} in
--list)
	while IFS= read -r row; do
		mutant_parse "$row"
		echo "$MUT_ID"
	done <<< "$rows"
	;;
--check)
	pmdk_source_identify
	tree=$(pmdk_source_tree)
	bad=0 n=0 ids=" "
	while IFS= read -r row; do
		n=$((n + 1))
		mutant_parse "$row"
		why=
		if [[ ! $MUT_ID =~ ^[a-z0-9][a-z0-9-]*$ ]]; then
			why="id '$MUT_ID' is not lower-case letters, digits and '-'"
		elif [[ $ids == *" $MUT_ID "* ]]; then
			why="id used twice"
		elif [ -z "$MUT_FILE" ] || [ -z "$MUT_FIND" ] || [ -z "$MUT_REPL" ] || [ -z "$MUT_WHAT" ] ||
			[[ $MUT_WHAT == *'|'* ]]; then
			why="not five non-empty fields separated by '|'"
		elif [ "$MUT_FIND" = "$MUT_REPL" ]; then
			why="the replacement is the line itself"
		elif [ ! -f "$tree/$MUT_FILE" ]; then
			why="no file $MUT_FILE"
		else
			count=$(mutant_matches "$tree")
			[ "$count" = 1 ] || why="'$MUT_FIND' occurs $count times in $MUT_FILE, not once"
		fi
		ids+="$MUT_ID "
		if [ -n "$why" ]; then
			echo "mutants: row $n (${MUT_ID:-?}): $why" >&2
			bad=$((bad + 1))
		fi
	done <<< "$rows"
	if [ "$bad" -gt 0 ]; then
		echo "mutants: $bad of $n rows do not apply to PMDK $PMDK_SRC_DESC" >&2
		exit 1
	fi
	echo "mutants: all $n rows apply to PMDK $PMDK_SRC_DESC"
	;;
*)
	sed -n '/^#   targets/,/^#  *line found/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
