#!/usr/bin/env bash
# Installs what zkrecipes' tests and examples need on a fresh Debian machine
# (as root): Debian's zookeeper package (the local-process backend, and Java),
# Curator's jars (recipes and curator-x-discovery) for the Go/Java
# interoperability tests, and the jars of the other ZooKeeper versions the
# local backend runs (scripts/fetch-zk-jars.sh: 3.9.3, and 3.4.13 without
# addWatch). Also Debian's redis-server and mariadb-server, whose programs
# examples/fencing and integration/fencingit run as throwaway processes on
# loopback (never as system services: none is started here). And staticcheck,
# which scripts/test.sh runs, with the go command at a pinned version (into
# /usr/local/bin). Idempotent: does nothing when everything is present.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# zk_versions fetches the other servers' jars once Debian's zookeeper is in
# place (their dependencies are its jars). 3.9.3 is required: scripts/test.sh
# runs suites on it. 3.4.13 comes from bullseye, which may leave Debian's
# archive one day: its failure only warns here (the harness's test of it then
# fails, naming the fetch to run).
zk_versions() {
	bash fetch-zk-jars.sh 3.9.3 || {
		echo "install-deps: ERROR: ZooKeeper 3.9.3's jars could not be fetched" >&2
		exit 1
	}
	bash fetch-zk-jars.sh 3.4.13 || echo "install-deps: WARNING: ZooKeeper 3.4.13's jars could not be fetched" >&2
}

# staticcheck is a Go tool, not a Debian package: the go command installs it
# at the version whose checks scripts/test.sh expects to pass. Go's own bin
# directories are looked in as scripts/test.sh does.
staticcheck_version=v0.8.2
export PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null 2>&1 && PATH="$PATH:$(go env GOPATH)/bin"
if ! command -v staticcheck >/dev/null 2>&1; then
	echo "install-deps: installing staticcheck $staticcheck_version"
	GOBIN=/usr/local/bin go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version" || {
		echo "install-deps: ERROR: staticcheck could not be installed into /usr/local/bin (the go command, as root)" >&2
		exit 1
	}
fi

need=()
command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
[ -f /usr/share/java/zookeeper.jar ] || need+=(zookeeper)
[ -f /usr/share/java/curator-recipes.jar ] || need+=(libcurator-recipes-java libcurator-framework-java libcurator-client-java)
[ -f /usr/share/java/curator-x-discovery.jar ] || need+=(libcurator-discovery-java)
command -v javac >/dev/null 2>&1 || need+=(default-jdk-headless)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
{ [ -x /usr/sbin/mariadbd ] && command -v mariadb-install-db >/dev/null 2>&1; } || need+=(mariadb-server)

if [ ${#need[@]} -eq 0 ]; then
	echo "install-deps: zookeeper, java, curator, redis-server, mariadb-server and staticcheck are present"
	zk_versions
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: ERROR: missing ${need[*]}; run as root to install them" >&2
	exit 1
fi
echo "install-deps: installing ${need[*]}"
# Packages with a service (redis-server, mariadb-server) must not start it:
# the tests start their own servers. policy-rc.d says so to invoke-rc.d while
# apt runs, unless the machine has one already (Debian's images do).
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod +x "$policy"
	trap 'rm -f "$policy"' EXIT
fi
apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
zk_versions
echo "install-deps: done"
