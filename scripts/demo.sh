#!/usr/bin/env bash
# Runs the examples. With no arguments each starts a throwaway ZooKeeper
# through the harness (a Docker container when a Docker engine and the image
# are there, else a local java process from Debian's zookeeper package, which
# this script installs when missing). Pass -zk host:port[,host:port] to use an
# ensemble of your own. The last, examples/fencing, also starts throwaway
# redis-server and MariaDB processes (Debian's packages, installed by
# install-deps.sh) and a 3-server ensemble for its failover, and ends with
# the table of docs/lock-debate.md, "Which lock? The seeds' debate, measured" (about a
# minute).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
export TESTCONTAINERS_RYUK_DISABLED=true
export TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1
export ZK_IMAGE="${ZK_IMAGE:-zkrecipes/zookeeper:3.8-debian}"
bash scripts/install-deps.sh
for ex in mutex rwlock semaphore election scheduler discovery fencing; do
	echo "== examples/$ex"
	go run "./examples/$ex" "$@"
done
