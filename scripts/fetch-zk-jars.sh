#!/usr/bin/env bash
# Fetches the jars of the ZooKeeper servers that the harness's local-process
# backend runs besides Debian bookworm's 3.8.0 (zktest.WithVersion and
# ZK_VERSION), one directory each: ${ZK_VERSIONS_DIR:-/opt/zkrecipes}/zookeeper-VERSION/lib.
#
#   3.9.3   Debian trixie's libzookeeper-java: the 3.9 line.
#   3.4.13  Debian bullseye's libzookeeper-java: a server without addWatch
#           (3.6), create2, container and TTL nodes (3.5), for the clients'
#           per-node fallbacks.
#
# Both come from Debian's package archive, the one registry of Java jars that
# this project's machines reach (Maven Central's host does not resolve here).
# The .deb is downloaded with `apt-get download` through a private apt
# state in a temporary directory (the system's sources and lists stay as they
# are) and only unpacked, never installed. Its other jars are bookworm's in
# /usr/share/java, which Debian's zookeeper package installed (3.9.3's
# zookeeper.jar names them in its manifest by absolute path); lib/ links the
# ones the harness needs by name (slf4j with its log4j 1.2 binding, netty-codec
# for TLS). Both versions log through log4j 1.2, as bookworm's 3.8.0 does.
#
# Usage: fetch-zk-jars.sh VERSION...   (as root, or with ZK_VERSIONS_DIR writable)
# Idempotent: a version whose lib/.complete exists is skipped. Exits non-zero
# when any version named could not be fetched; the caller decides whether
# that is fatal (scripts/install-deps.sh: 3.9.3 is, 3.4.13 is not, since
# bullseye may leave the archive).
set -euo pipefail

root="${ZK_VERSIONS_DIR:-/opt/zkrecipes}"

# suite VERSION: the Debian suite whose libzookeeper-java is that version.
suite() {
	case "$1" in
	3.9.3) echo trixie ;;
	3.4.13) echo bullseye ;;
	*) return 1 ;;
	esac
}

# fetch VERSION: fetches one version into $root/zookeeper-VERSION.
fetch() {
	local v="$1" s dest tmp apt cand deb jar dep
	dest="$root/zookeeper-$v"
	if [ -f "$dest/lib/.complete" ]; then
		echo "fetch-zk-jars: ZooKeeper $v is present in $dest"
		return 0
	fi
	if ! s=$(suite "$v"); then
		echo "fetch-zk-jars: ERROR: no source known for ZooKeeper $v (known: 3.9.3, 3.4.13)" >&2
		return 1
	fi
	for dep in slf4j-api slf4j-log4j12 log4j-1.2 netty-codec; do
		if [ ! -f "/usr/share/java/$dep.jar" ]; then
			echo "fetch-zk-jars: ERROR: /usr/share/java/$dep.jar missing (apt-get install zookeeper first)" >&2
			return 1
		fi
	done
	mkdir -p "$root" || return 1
	tmp=$(mktemp -d "$root/.fetch-$v.XXXXXX") || return 1
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'; trap - RETURN" RETURN
	mkdir -p "$tmp/apt/lists/partial" "$tmp/apt/cache/archives/partial" "$tmp/apt/parts" "$tmp/deb" "$tmp/x" "$tmp/out/lib" || return 1
	: >"$tmp/apt/status" || return 1
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $s main" >"$tmp/apt/sources.list"
	apt=(
		-o "Dir::Etc::SourceList=$tmp/apt/sources.list"
		-o "Dir::Etc::SourceParts=$tmp/apt/parts"
		-o "Dir::State::Lists=$tmp/apt/lists"
		-o "Dir::Cache=$tmp/apt/cache"
		-o "Dir::State::status=$tmp/apt/status"
		-o "APT::Sandbox::User=root"
		-o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false"
		-o "Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false"
		-o "Acquire::IndexTargets::deb::DEP-11-icons-hidpi::DefaultEnabled=false"
	)
	echo "fetch-zk-jars: ZooKeeper $v: libzookeeper-java from Debian $s"
	if ! apt-get "${apt[@]}" -q update >"$tmp/apt.log" 2>&1; then
		echo "fetch-zk-jars: ERROR: apt-get update for Debian $s failed:" >&2
		tail -5 "$tmp/apt.log" >&2
		return 1
	fi
	cand=$(apt-cache "${apt[@]}" policy libzookeeper-java | sed -n 's/^ *Candidate: *//p')
	case "$cand" in
	"$v"-*) ;;
	*)
		echo "fetch-zk-jars: ERROR: Debian $s has libzookeeper-java '${cand:-none}', not $v" >&2
		return 1
		;;
	esac
	if ! (cd "$tmp/deb" && apt-get "${apt[@]}" -q download "libzookeeper-java=$cand") >>"$tmp/apt.log" 2>&1; then
		echo "fetch-zk-jars: ERROR: apt-get download libzookeeper-java=$cand failed:" >&2
		tail -5 "$tmp/apt.log" >&2
		return 1
	fi
	for deb in "$tmp"/deb/*.deb; do
		dpkg-deb -x "$deb" "$tmp/x" || return 1
	done
	for jar in zookeeper zookeeper-jute; do
		if [ -f "$tmp/x/usr/share/java/$jar-$v.jar" ]; then
			cp "$tmp/x/usr/share/java/$jar-$v.jar" "$tmp/out/lib/$jar.jar" || return 1
		elif [ "$jar" = zookeeper ]; then
			echo "fetch-zk-jars: ERROR: libzookeeper-java=$cand has no zookeeper-$v.jar" >&2
			return 1
		fi
	done
	for dep in slf4j-api slf4j-log4j12 log4j-1.2 netty-codec; do
		ln -s "/usr/share/java/$dep.jar" "$tmp/out/lib/$dep.jar" || return 1
	done
	echo "libzookeeper-java=$cand (Debian $s)" >"$tmp/out/SOURCE" || return 1
	touch "$tmp/out/lib/.complete" || return 1
	rm -rf "$dest" && mv "$tmp/out" "$dest" || return 1
	echo "fetch-zk-jars: ZooKeeper $v: $dest/lib ($cand)"
}

if [ $# -eq 0 ]; then
	echo "usage: fetch-zk-jars.sh VERSION... (3.9.3, 3.4.13)" >&2
	exit 2
fi
status=0
for v in "$@"; do
	fetch "$v" || status=1
done
exit $status
