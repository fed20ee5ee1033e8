#!/usr/bin/env bash
# Installs what zkrecipes' tests and examples need on a fresh Debian machine
# (as root): Debian's zookeeper package (the local-process backend, and Java),
# and Curator's jars (recipes and curator-x-discovery) for the Go/Java
# interoperability tests. Idempotent: does
# nothing when everything is present.
set -euo pipefail

need=()
command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
[ -f /usr/share/java/zookeeper.jar ] || need+=(zookeeper)
[ -f /usr/share/java/curator-recipes.jar ] || need+=(libcurator-recipes-java libcurator-framework-java libcurator-client-java)
[ -f /usr/share/java/curator-x-discovery.jar ] || need+=(libcurator-discovery-java)
command -v javac >/dev/null 2>&1 || need+=(default-jdk-headless)

if [ ${#need[@]} -eq 0 ]; then
	echo "install-deps: zookeeper, java and curator are present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: ERROR: missing ${need[*]}; run as root to install them" >&2
	exit 1
fi
echo "install-deps: installing ${need[*]}"
apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
echo "install-deps: done"
