# shellcheck shell=bash
# shellcheck disable=SC2034 # the PMDK_* and MUT_* variables are for the scripts that source this
# What targets/pmdk/build.sh and mutants.sh share: where PMDK's source
# comes from, and the mutant table.
#
#   . targets/pmdk/lib.sh
#   pmdk_source_identify      -> sets PMDK_SRC_ID (cache key), PMDK_SRC_DESC (for
#                                info), PMDK_SRC_VERSION; reads nothing but
#                                metadata, so a cached build is found fast
#   pmdk_source_tree          -> prints a directory holding the pristine tree:
#                                $PMDK itself, or Debian's source package unpacked
#                                once into the cache (apt-get source, lib-debsrc.sh)
#   mutant_row ID             -> sets MUT_ID MUT_FILE MUT_FIND MUT_REPL MUT_WHAT
#   mutant_matches TREE       -> how many lines of MUT_FILE in TREE match MUT_FIND
#   mutant_apply TREE         -> the row applied in TREE (a copy), or die
#
# Sources, in order: PMDK=<checkout> (a user's tree, only read);
# PMDK_DEBSRC=<dir> (Debian's source package files already downloaded:
# pmdk_<ver>.dsc and its tarballs, or the orig tarball alone); otherwise
# the source package of the installed libpmemobj-dev, with apt.

PMDK_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PMDK_ROOT=$(cd "$PMDK_LIB_DIR/../.." && pwd)
PMDK_CACHE=${PMEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-aware}/pmdk
PMDK_MUTANTS=$PMDK_LIB_DIR/mutants

die() { echo "pmdk: $*" >&2; exit 1; }

hash_stdin() { sha256sum | cut -c1-64; }

# A user's tree: its commit and what differs from it (tracked changes and
# untracked files git does not ignore), or, outside git, every file.
pmdk_user_tree_id() { # dir
	local d=$1 head
	if head=$(git -C "$d" rev-parse --verify -q HEAD 2>/dev/null) &&
		[ "$(git -C "$d" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$d" && pwd -P)" ]; then
		local dirty
		dirty=$({
			git -C "$d" diff HEAD --binary
			(cd "$d" && git ls-files -z --others --exclude-standard | xargs -0 -r sha256sum --)
		} | hash_stdin)
		if [ -z "$(git -C "$d" status --porcelain --untracked-files=normal)" ]; then
			echo "git:$head"
		else
			echo "git:$head+dirty:${dirty:0:16}"
		fi
	else
		echo "files:$( (cd "$d" && find . -type f ! -path './.git/*' -print0 | sort -z |
			xargs -0 -r sha256sum --) | hash_stdin)"
	fi
}

pmdk_source_identify() {
	if [ -n "${PMDK:-}" ]; then
		[ -d "$PMDK/src/libpmemobj" ] || die "PMDK=$PMDK is not a PMDK tree (no src/libpmemobj)"
		PMDK=$(cd "$PMDK" && pwd -P)
		PMDK_SRC_ID="tree:$(pmdk_user_tree_id "$PMDK")"
		# The tree's own version script, as PMDK's Makefiles run it (it only reads).
		PMDK_SRC_VERSION=$(bash "$PMDK/utils/version.sh" "$PMDK" 2>/dev/null) || PMDK_SRC_VERSION=unknown
		PMDK_SRC_DESC="$PMDK (${PMDK_SRC_ID#tree:})"
	elif [ -n "${PMDK_DEBSRC:-}" ]; then
		local files
		files=$(find "$PMDK_DEBSRC" -maxdepth 1 -name 'pmdk_*' -type f | sort)
		[ -n "$files" ] || die "PMDK_DEBSRC=$PMDK_DEBSRC holds no pmdk_* files (pmdk_<ver>.dsc and its tarballs)"
		PMDK_SRC_VERSION=$(sed -n 's/^Version: //p' "$PMDK_DEBSRC"/pmdk_*.dsc 2>/dev/null) || true
		if [ -z "$PMDK_SRC_VERSION" ]; then
			PMDK_SRC_VERSION=$(basename "$(grep -m1 '\.orig\.tar\.' <<< "$files")")
			PMDK_SRC_VERSION=${PMDK_SRC_VERSION#pmdk_}
			PMDK_SRC_VERSION=${PMDK_SRC_VERSION%.orig.tar.*}
		fi
		PMDK_SRC_ID="debsrc:$PMDK_SRC_VERSION:$(xargs -d '\n' sha256sum -- <<< "$files" | cut -c1-64 | hash_stdin)"
		PMDK_SRC_DESC="debian:$PMDK_SRC_VERSION (files from $PMDK_DEBSRC)"
	else
		local sv src
		[ "$(dpkg-query -W -f='${Status}' libpmemobj-dev 2>/dev/null)" = "install ok installed" ] ||
			die "libpmemobj-dev is not installed, and its version names the PMDK to build; run 'sudo make setup' (or set PMDK=<your PMDK checkout>)"
		sv=$(debsrc_source_of libpmemobj-dev)
		read -r src PMDK_SRC_VERSION <<< "$sv"
		[ "$src" = pmdk ] || die "libpmemobj-dev comes from source package $src, not pmdk"
		PMDK_SRC_ID="debian:$PMDK_SRC_VERSION"
		PMDK_SRC_DESC="debian:$PMDK_SRC_VERSION"
	fi
}

# Debian's source package unpacked into DIR/tree; DIR/patches says which
# Debian patches dpkg-source applied.
pmdk_unpack_debian() { # dir(empty) [files-dir]
	local out=$1 files=${2:-} dsc orig series
	if [ -z "$files" ]; then
		local suite
		files=$out/download
		mkdir -p "$files"
		suite=$(debsrc_suite libpmemobj-dev "$PMDK_SRC_VERSION")
		debsrc_prepare "$suite" pmdk "$PMDK_SRC_VERSION" "$files" \
			"Added by pmem-aware: source packages (qemu-plugin.h from QEMU's," \
			"PMDK's tree from pmdk's) that no binary package ships."
		# A mirror that does not serve the files is this machine's lack, not
		# a failure of ours: exit 3 says so (tests skip on it, class pmdk-source).
		if ! (debsrc_download pmdk "$PMDK_SRC_VERSION" "$files" "$suite"); then
			echo "pmdk: no PMDK source: this machine's mirror does not serve pmdk $PMDK_SRC_VERSION's source package; set PMDK=<a PMDK ${PMDK_SRC_VERSION%-*} checkout>, or PMDK_DEBSRC=<a directory of pmdk_$PMDK_SRC_VERSION.dsc and its files>" >&2
			exit 3
		fi
	fi
	dsc=$(find "$files" -maxdepth 1 -name 'pmdk_*.dsc' -print -quit)
	orig=$(find "$files" -maxdepth 1 -name 'pmdk_*.orig.tar.*' ! -name '*.asc' -print -quit)
	[ -n "$orig" ] || die "no pmdk_*.orig.tar.* among the source package's files in $files"
	# dpkg-source checks each file against the .dsc's checksums and applies
	# debian/patches; without a .dsc (or its debian tarball) the orig
	# tarball is unpacked as it is.
	if [ -n "$dsc" ] && [ -n "$(find "$files" -maxdepth 1 -name 'pmdk_*.debian.tar.*' -print -quit)" ] &&
		(cd "$files" && dpkg-source -x "$(basename "$dsc")" "$out/tree") > "$out/unpack.log" 2>&1; then
		series=$out/tree/debian/patches/series
		if [ -s "$series" ]; then
			{ printf 'applied:'; sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' -e 's/^/ /' "$series" | tr -d '\n'; echo; } > "$out/patches"
		else
			echo "applied: none (the package has none)" > "$out/patches"
		fi
	else
		rm -rf "$out/tree"
		mkdir -p "$out/tree"
		tar -xaf "$orig" -C "$out/tree" --strip-components=1 > "$out/unpack.log" 2>&1 ||
			die "cannot unpack $(basename "$orig") (see $out/unpack.log)"
		echo "not applied (only the orig tarball: ${dsc:+dpkg-source -x failed, see unpack.log}${dsc:-no .dsc})" > "$out/patches"
	fi
	rm -rf "$out/download" "$out"/pmdk_*
}

pmdk_source_tree() {
	if [ -n "${PMDK:-}" ]; then
		echo "$PMDK"
		return
	fi
	local key dir tmp
	key=$(printf '%s' "$PMDK_SRC_ID" | hash_stdin)
	dir=$PMDK_CACHE/src/${PMDK_SRC_VERSION//[^A-Za-z0-9.+~_-]/_}-${key:0:12}
	if [ ! -d "$dir/tree" ]; then
		mkdir -p "$PMDK_CACHE/src"
		exec {srclock}> "$dir.lock"
		flock "$srclock"
		if [ ! -d "$dir/tree" ]; then
			rm -rf "$dir".tmp.*
			tmp=$(mktemp -d "$dir.tmp.XXXXXX")
			chmod 755 "$tmp"
			# shellcheck disable=SC2064 # this tmp, now
			trap "rm -rf '$tmp'" EXIT
			echo "pmdk: fetching and unpacking PMDK $PMDK_SRC_DESC into $dir" >&2
			pmdk_unpack_debian "$tmp" "${PMDK_DEBSRC:-}"
			mv "$tmp" "$dir"
			trap - EXIT
		fi
		flock -u "$srclock"
		exec {srclock}>&-
	fi
	echo "$dir/tree"
}

# Debian's patches as they were applied ("" for a user's tree).
pmdk_source_patches() { # tree
	[ -n "${PMDK:-}" ] || cat "$1/../patches"
}

trim() { # text -> text without leading and trailing blanks
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	s=${s%"${s##*[![:space:]]}"}
	printf '%s' "$s"
}

# The table's rows, "#" comments and blank lines left out.
mutant_rows() {
	sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$PMDK_MUTANTS"
}

mutant_parse() { # row
	local id file find repl what
	IFS='|' read -r id file find repl what <<< "$1"
	MUT_ID=$(trim "$id")
	MUT_FILE=$(trim "$file")
	MUT_FIND=$(trim "$find")
	MUT_REPL=$(trim "$repl")
	MUT_WHAT=$(trim "${what:-}")
}

mutant_row() { # id
	local row rows
	rows=$(mutant_rows)
	while IFS= read -r row; do
		mutant_parse "$row"
		[ "$MUT_ID" = "$1" ] && return 0
	done <<< "$rows"
	die "no mutant '$1' in targets/pmdk/mutants (targets/pmdk/mutants.sh --list)"
}

# Lines of MUT_FILE whose text, blanks around it left out, is MUT_FIND:
# their count, or with "line" the number of the last one.
mutant_matches() { # tree [line]
	[ -f "$1/$MUT_FILE" ] || { echo 0; return; }
	FIND=$MUT_FIND WHAT=${2:-count} awk '
		{ s = $0; sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s) }
		s == ENVIRON["FIND"] { n++; at = NR }
		END { print ENVIRON["WHAT"] == "line" ? at + 0 : n + 0 }' "$1/$MUT_FILE"
}

# The one matching line replaced, its indentation kept, in a copy of the
# tree: line numbers stay those of the unmutated source. Sets MUT_LINE.
mutant_apply() { # tree
	local n f=$1/$MUT_FILE
	n=$(mutant_matches "$1")
	[ "$n" = 1 ] ||
		die "mutant $MUT_ID: the line '$MUT_FIND' occurs $n times in $MUT_FILE, not once"
	MUT_LINE=$(mutant_matches "$1" line)
	AT=$MUT_LINE REPL=$MUT_REPL awk '
		NR == ENVIRON["AT"] + 0 { match($0, /^[ \t]*/); print substr($0, 1, RLENGTH) ENVIRON["REPL"]; next }
		{ print }' "$f" > "$f.mutant"
	cat "$f.mutant" > "$f"
	rm -f "$f.mutant"
}
