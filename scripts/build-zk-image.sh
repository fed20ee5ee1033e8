#!/bin/bash
# Builds a local ZooKeeper docker image from Debian's own packages, for machines
# that cannot reach an image registry.
#
#   scripts/build-zk-image.sh            # builds $ZK_IMAGE (default zkrecipes/zookeeper:3.8-debian)
#
# The image honours the environment variables of the official "zookeeper" image
# (ZOO_MY_ID, ZOO_SERVERS, ZOO_TICK_TIME, ZOO_CFG_EXTRA, JVMFLAGS, ...; see
# scripts/zk-image/docker-entrypoint.sh), so zktest drives both
# the same way.
#
# Idempotent: when the image already exists it is reused and nothing is done,
# unless its entrypoint is not the one in scripts/zk-image (the image carries
# the entrypoint's sha256 in a label): then only the entrypoint is replaced, on
# top of the existing image (docker create, cp, commit; a few seconds, offline).
# The root filesystem is made with debootstrap from the apt mirror this host
# already uses (override with ZK_DEBIAN_MIRROR=URL), in a temporary directory
# under /var/tmp that is removed afterwards. Needs root and a running Docker
# engine (scripts/ensure-docker.sh).
set -euo pipefail

IMAGE="${ZK_IMAGE:-zkrecipes/zookeeper:3.8-debian}"
SUITE="bookworm"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ENTRYPOINT_SRC="$HERE/zk-image/docker-entrypoint.sh"

log() { echo "build-zk-image: $*" >&2; }
die() {
	echo "build-zk-image: ERROR: $*" >&2
	exit 1
}

command -v docker >/dev/null 2>&1 || die "docker is not installed (run scripts/ensure-docker.sh first)"
docker version --format '{{.Server.Version}}' >/dev/null 2>&1 || die "the Docker engine does not answer (run scripts/ensure-docker.sh first)"

[ -f "$ENTRYPOINT_SRC" ] || die "missing $ENTRYPOINT_SRC"
LABEL="org.zkrecipes.zk-image.entrypoint-sha256"
SUM="$(sha256sum "$ENTRYPOINT_SRC" | cut -d' ' -f1)"

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
	have="$(docker image inspect --format "{{index .Config.Labels \"$LABEL\"}}" "$IMAGE" 2>/dev/null || true)"
	if [ "$have" = "$SUM" ]; then
		log "image $IMAGE already exists: reused"
		exit 0
	fi
	log "image $IMAGE has another entrypoint: replacing it with $ENTRYPOINT_SRC"
	tmp="$(mktemp -d)"
	install -m 0755 "$ENTRYPOINT_SRC" "$tmp/docker-entrypoint.sh"
	ctr="$(docker create "$IMAGE")" || die "docker create $IMAGE failed"
	if docker cp "$tmp/docker-entrypoint.sh" "$ctr:/usr/local/bin/docker-entrypoint.sh" >/dev/null &&
		docker commit --change "LABEL $LABEL=$SUM" "$ctr" "$IMAGE" >/dev/null; then
		ok=1
	else
		ok=0
	fi
	docker rm "$ctr" >/dev/null || true
	rm -rf "$tmp"
	[ "$ok" = 1 ] || die "could not replace the entrypoint of $IMAGE"
	log "updated $IMAGE"
	exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap needs it)"

if ! command -v debootstrap >/dev/null 2>&1; then
	log "installing debootstrap"
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap
fi

# find_mirror prints the URL of the Debian archive the host's apt uses: the first
# "deb" source whose suites include a plain release name (not -security or
# -updates). Both the deb822 (*.sources) and the one-line (sources.list) formats
# are read.
find_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && uris != "") {
					n = split(suites, s, " ")
					for (i = 1; i <= n; i++) {
						if (s[i] !~ /[-\/]/) {
							split(uris, u, " ")
							print u[1]
							found = 1
							exit
						}
					}
				}
				types = ""; uris = ""; suites = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^[ \t]*#/ { next }
			tolower($1) == "types:"  { $1 = ""; types = $0 }
			tolower($1) == "uris:"   { $1 = ""; sub(/^ +/, ""); uris = $0 }
			tolower($1) == "suites:" { $1 = ""; suites = $0 }
			END { if (!found) flush() }
		' "$f" | head -n1
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while ($i !~ /\]$/ && i < NF) i++; i++ }
				url = $i; suite = $(i + 1)
				if (suite !~ /[-\/]/ && url ~ /^(https?|file):/) { print url; exit }
			}
		' "$f"
	done
}

MIRROR="${ZK_DEBIAN_MIRROR:-}"
if [ -z "$MIRROR" ]; then
	MIRROR="$(find_mirror | head -n1 || true)"
fi
[ -n "$MIRROR" ] || die "cannot find the host's Debian mirror in /etc/apt; set ZK_DEBIAN_MIRROR=URL"
log "building $IMAGE from Debian $SUITE via $MIRROR"

WORK="$(mktemp -d /var/tmp/zk-image.XXXXXX)"
cleanup() {
	# debootstrap may leave bind mounts behind when it fails half way.
	local m
	for m in proc sys dev/pts dev; do
		if mountpoint -q "$WORK/rootfs/$m" 2>/dev/null; then
			umount -l "$WORK/rootfs/$m" || true
		fi
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

ROOTFS="$WORK/rootfs"
debootstrap --variant=minbase \
	--include=openjdk-17-jre-headless,zookeeper \
	"$SUITE" "$ROOTFS" "$MIRROR"

install -m 0755 "$ENTRYPOINT_SRC" "$ROOTFS/usr/local/bin/docker-entrypoint.sh"
mkdir -p "$ROOTFS/conf" "$ROOTFS/data" "$ROOTFS/datalog"
# Trim what a server never needs; the image stays importable either way.
rm -rf "$ROOTFS/var/cache/apt/archives/"*.deb "$ROOTFS/var/lib/apt/lists/"* || true

log "importing the root filesystem into docker"
tar -C "$ROOTFS" -c . | docker import \
	-c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
	-c 'ENV ZOO_CONF_DIR=/conf ZOO_DATA_DIR=/data ZOO_DATA_LOG_DIR=/datalog' \
	-c 'WORKDIR /' \
	-c 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
	-c 'CMD ["zkServer.sh", "start-foreground"]' \
	-c 'EXPOSE 2181 2888 3888' \
	-c "LABEL $LABEL=$SUM" \
	- "$IMAGE" >/dev/null

docker image inspect "$IMAGE" >/dev/null || die "docker import did not produce $IMAGE"
log "built $IMAGE"
