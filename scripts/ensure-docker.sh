#!/bin/bash
# Makes sure a Docker engine answers on this machine.
#
#   scripts/ensure-docker.sh && echo "docker ready"
#
# Installs Debian's docker.io when dockerd is missing (one apt-get update, then
# apt-get install), starts dockerd in the background with its log in
# /var/tmp/dockerd.log when the engine does not answer, and waits up to 60s
# for `docker version` to show a server (ENSURE_DOCKER_WAIT overrides the 60).
#
# Exit status 0: docker works. Non-zero: it does not, with a loud message on
# stderr; callers then use the local ZooKeeper backend (ZK_BACKEND=local).
set -euo pipefail

DOCKERD_LOG=/var/tmp/dockerd.log
WAIT_SECONDS="${ENSURE_DOCKER_WAIT:-60}"

log() { echo "ensure-docker: $*" >&2; }
fail() {
	{
		echo
		echo "############################################################"
		echo "### ensure-docker: DOCKER IS NOT AVAILABLE"
		echo "### $*"
		echo "### (dockerd log: $DOCKERD_LOG)"
		echo "############################################################"
		echo
	} >&2
	exit 1
}

server_version() {
	docker version --format '{{.Server.Version}}' 2>/dev/null
}

if command -v docker >/dev/null 2>&1 && v="$(server_version)" && [ -n "$v" ]; then
	log "docker engine $v answers"
	exit 0
fi

if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
	[ "$(id -u)" -eq 0 ] || fail "dockerd is not installed and this is not root"
	log "installing docker.io"
	apt-get update || fail "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y docker.io || fail "apt-get install docker.io failed"
fi

if ! pgrep -x dockerd >/dev/null 2>&1; then
	[ "$(id -u)" -eq 0 ] || fail "dockerd is not running and this is not root"
	log "starting dockerd (log: $DOCKERD_LOG)"
	# setsid: the daemon must outlive this script and its caller's process group.
	setsid dockerd >>"$DOCKERD_LOG" 2>&1 </dev/null &
fi

for _ in $(seq "$WAIT_SECONDS"); do
	if v="$(server_version)" && [ -n "$v" ]; then
		log "docker engine $v answers"
		exit 0
	fi
	sleep 1
done

if [ -f "$DOCKERD_LOG" ]; then
	echo "ensure-docker: last lines of $DOCKERD_LOG:" >&2
	tail -n 20 "$DOCKERD_LOG" >&2 || true
fi
fail "the Docker engine did not answer within ${WAIT_SECONDS}s"
