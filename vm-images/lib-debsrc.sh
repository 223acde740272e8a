# shellcheck shell=bash
# Debian source packages through apt, for the scripts that need upstream
# sources no binary package ships: vm-images/fetch-qemu-plugin-header.sh
# (qemu-plugin.h) and targets/pmdk/build.sh (PMDK's tree).
#
#   . vm-images/lib-debsrc.sh
#   DEBSRC_SELF=path/of/the/caller     named in "run 'sudo ...' once"
#   die() { ...; exit 1; }             the caller's: one line on stderr
#   sv=$(debsrc_source_of PKG); read -r src srcver <<< "$sv"
#   suite=$(debsrc_suite PKG SRCVER)
#   debsrc_prepare SUITE SRC SRCVER LOGDIR "comment line"...
#   debsrc_download SRC SRCVER DIR SUITE  -> 0: the files are in DIR
#
# debsrc_prepare adds a deb-src entry for SUITE when none exists
# (/etc/apt/sources.list.d/pmem-aware-src-SUITE.sources) and updates the
# indexes when they do not list SRC SRCVER: both need root, and die
# otherwise, naming $DEBSRC_SELF.

# "source-package source-version" of the installed binary package PKG.
debsrc_source_of() { # pkg
	local src srcver
	read -r src srcver < <(dpkg-query -W -f='${source:Package} ${source:Version}\n' "$1" 2>/dev/null) || true
	[ -n "${srcver:-}" ] || die "dpkg-query cannot name the source package of $1"
	echo "$src $srcver"
}

# The suite the installed PKG came from.
debsrc_suite() { # pkg srcver
	local policy suite
	# The apt line under the installed version ("*** VER PRIO") names the suite.
	# apt-cache's output is read whole before it is parsed: an awk that stopped
	# reading at its first match would kill apt-cache with SIGPIPE, and
	# pipefail would end the script there.
	policy=$(apt-cache policy "$1" 2>/dev/null) || policy=
	suite=$(awk '
		/^ \*\*\* / { inst = 1; next }
		/^     [^ ]/ { inst = 0 }
		inst && !found && $2 ~ /^[a-z]+:\/\// { split($3, s, "/"); print s[1]; found = 1 }' <<< "$policy")
	if [ -z "$suite" ]; then
		# Installed from a .deb no index lists any more: guess from the version.
		case $2 in
		*~bpo12*) suite=bookworm-backports ;;
		*) suite=bookworm ;;
		esac
	fi
	echo "$suite"
}

# Is there already a deb-src entry for SUITE (one-line or deb822 format)?
debsrc_have_entry() { # suite
	local f suite=$1
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		grep -Eq "^[[:space:]]*deb-src[[:space:]].*[[:space:]]$suite([[:space:]]|$)" "$f" && return 0
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		# A stanza ends at a blank line; it needs both fields.
		awk -v suite="$suite" '
			function check() { if (t && s && !off) found = 1; t = s = off = 0 }
			/^[[:space:]]*$/ { check(); next }
			tolower($1) == "types:" && / deb-src( |$)/ { t = 1 }
			tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) s = 1 }
			tolower($1) == "enabled:" && tolower($2) == "no" { off = 1 }
			END { check(); exit !found }' "$f" && return 0
	done
	return 1
}

debsrc_need_root() { # why
	[ "$(id -u)" -eq 0 ] ||
		die "$1; run 'sudo $DEBSRC_SELF' once (later runs use the cache)"
}

# A deb-src entry for SUITE, and indexes that list SRC SRCVER.
debsrc_prepare() { # suite src srcver logdir comment-line...
	local suite=$1 src=$2 srcver=$3 logdir=$4 added=0 showsrc line
	shift 4
	if ! debsrc_have_entry "$suite"; then
		debsrc_need_root "no deb-src entry for $suite"
		{
			for line in "$@"; do
				echo "# $line"
			done
			cat <<-EOF
				Types: deb-src
				URIs: http://deb.debian.org/debian
				Suites: $suite
				Components: main
				Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
			EOF
		} > "/etc/apt/sources.list.d/pmem-aware-src-$suite.sources"
		added=1
	fi
	# The indexes may already know the source (added earlier, updated since).
	showsrc=$(apt-cache showsrc "$src" 2>/dev/null) || showsrc=
	if [ "$added" = 1 ] || ! grep -xqF "Version: $srcver" <<< "$showsrc"; then
		debsrc_need_root "apt source indexes do not list $src $srcver"
		apt-get update > "$logdir/update.log" 2>&1 ||
			die "apt-get update failed (see: apt-get update); check the network and /etc/apt/sources.list.d/"
	fi
}

# The source package's files into DIR. Try the whole source package first;
# if a file of it cannot be fetched (mirrors and proxies have been seen to
# serve the orig tarball but 404 the .dsc), fetch the orig tarball alone with
# apt's own downloader, which checks it against the SHA256 in the index.
# apt-get source keeps the files it did fetch (verified), and --print-uris
# then leaves them out. Both run unsandboxed: apt's _apt user cannot write
# a 0700 temp dir. Logs: DIR/source.log, DIR/helper.log.
debsrc_download() { # src srcver dir suite
	local src=$1 srcver=$2 dir=$3 suite=$4 uris uri url file hash
	if ! (cd "$dir" && apt-get -o APT::Sandbox::User=root source --download-only "$src=$srcver") \
		> "$dir/source.log" 2>&1 &&
		[ -z "$(find "$dir" -maxdepth 1 -name "${src}_*.orig.tar.*")" ]; then
		uris=$(cd "$dir" && apt-get source --print-uris "$src=$srcver" 2> /dev/null) || uris=
		uri=$(awk '$2 ~ /\.orig\.tar\./ && !n++' <<< "$uris")
		read -r url file _ hash <<< "${uri:-}"
		[ -n "${hash:-}" ] ||
			die "apt-get source --download-only $src=$srcver failed: $(grep -m1 '^E:' "$dir/source.log" || tail -n1 "$dir/source.log")"
		url=${url#\'}
		url=${url%\'}
		/usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file "$url" "$dir/$file" "$hash" \
			> "$dir/helper.log" 2>&1 ||
			die "cannot download $file for $src $srcver ($(grep -m1 '^E:' "$dir/helper.log" || tail -n1 "$dir/helper.log")); check the network and the deb-src entry for $suite"
	fi
}
