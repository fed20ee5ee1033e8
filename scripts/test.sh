#!/usr/bin/env bash
# Runs every zkrecipes test against real ZooKeeper servers, installing and
# starting whatever is missing first (as root on Debian):
#   1. Debian's zookeeper + Java (the local-process backend) and Curator's jars;
#   2. a Docker engine (docker.io, dockerd) and a ZooKeeper image built locally
#      from Debian's packages, for the testcontainers-go backend;
#   3. go vet, the library import check (scripts/check-imports.sh), gofmt,
#      staticcheck (of this module and of each contrib module), the
#      doc-comment check (scripts/checkdocs), the recipes' shape check
#      (scripts/checkshape), then
#      every test with -race on the docker backend, then a smoke subset again
#      on the local-process backend (with the TLS and ACL tests of
#      integration/securityit, so they run on both);
#   4. go vet and every test with -race of each module under contrib/ (the
#      metrics and tracing adapters, with go.mod files of their own), in the
#      workspace (go.work: against this working tree's root module), on the
#      local-process backend; before the tests, each contrib module is built
#      and vetted as a user's module would be, without the workspace and
#      without a replace, against the root module packed at the version it
#      requires (scripts/check-contrib-user.sh, about 10 s);
#   5. the wire, cache and election suites (and the persistent watches'
#      tests), and the given-up waits' (integration/abandonit), again with
#      -race on ZooKeeper 3.9.3, the local backend with the jars
#      scripts/install-deps.sh fetched (ZK_VERSION; about 3.5 minutes).
# If no Docker engine can be had, it says so loudly and runs everything on the
# local backend instead. A skipped test fails the run: nothing may be skipped.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
# go install's own bin directory too, where staticcheck may be.
command -v go >/dev/null 2>&1 && PATH="$PATH:$(go env GOPATH)/bin"
export ZK_IMAGE="${ZK_IMAGE:-zkrecipes/zookeeper:3.8-debian}"
export TESTCONTAINERS_RYUK_DISABLED=true
export TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1
# The root module is vetted and tested as a user gets it, without the
# workspace (go.work), whose build list has the contrib modules' newer
# dependencies in it; the contrib modules use the workspace (workspace=).
export GOWORK=off
workspace="GOWORK=$PWD/go.work"
log="$(mktemp -d)/test.log"

# CHECKS_ONLY=1 runs the static checks alone (vet, imports, gofmt,
# staticcheck, doc comments, the recipes' conventions): no install, no
# server, no test.
checks_only="${CHECKS_ONLY:-}"
[ -n "$checks_only" ] || bash scripts/install-deps.sh || exit 1

backend=docker
if [ -n "$checks_only" ]; then
	backend=none
elif ! bash scripts/ensure-docker.sh || ! bash scripts/build-zk-image.sh; then
	backend=local
	echo "################################################################"
	echo "## test: NO DOCKER ENGINE OR IMAGE: the testcontainers backend ##"
	echo "## cannot run here. EVERYTHING runs on the local backend.      ##"
	echo "################################################################"
fi

echo "test: go vet ./..."
go vet ./... || exit 1

contrib=()
for mod in contrib/*/go.mod; do
	[ -e "$mod" ] && contrib+=("$(dirname "$mod")")
done
for dir in "${contrib[@]}"; do
	echo "test: go vet ./... in $dir (a module of its own, in the workspace)"
	(cd "$dir" && env "$workspace" go vet ./...) || exit 1
done
echo "test: the contrib modules as a user's modules (scripts/check-contrib-user.sh)"
bash scripts/check-contrib-user.sh || exit 1

echo "test: scripts/check-imports.sh"
bash scripts/check-imports.sh || exit 1

echo "test: gofmt -l (no file may need formatting)"
unformatted=$(git ls-files -z '*.go' | xargs -0 -r gofmt -l) || {
	echo "test: gofmt: FAIL: gofmt could not read every file" >&2
	exit 1
}
if [ -n "$unformatted" ]; then
	echo "test: gofmt: FAIL: these files need gofmt -w:" >&2
	echo "$unformatted" >&2
	exit 1
fi

# staticcheck (scripts/install-deps.sh installs it): any finding fails the
# run. The root module without the workspace, as go vet; each contrib module
# in it.
echo "test: staticcheck ./... (no finding may remain)"
command -v staticcheck >/dev/null 2>&1 || {
	echo "test: staticcheck: FAIL: not installed (scripts/install-deps.sh installs it)" >&2
	exit 1
}
staticcheck ./... || exit 1
for dir in "${contrib[@]}"; do
	echo "test: staticcheck ./... in $dir (in the workspace)"
	(cd "$dir" && env "$workspace" staticcheck ./...) || exit 1
done

echo "test: exported identifiers of the library and the harness have doc comments"
go run ./scripts/checkdocs doc.go errors.go client retry internal recipes zktest integration/zerocheck integration/lockdebate "${contrib[@]}" || exit 1

echo "test: every recipe package keeps the conventions docs/api.md states (scripts/checkshape)"
go run ./scripts/checkshape recipes/*/ || exit 1
if [ -n "$checks_only" ]; then
	echo "test: the static checks pass (CHECKS_ONLY: no test was run)"
	exit 0
fi

status=0
echo "test: go test -race ./... with ZK_BACKEND=$backend (log: $log)"
ZK_BACKEND=$backend go test -race -count=1 -timeout 20m -v ./... >"$log" 2>&1 || status=1
if [ "$backend" = docker ]; then
	echo "test: smoke subset on the local-process backend"
	ZK_BACKEND=local go test -race -count=1 -timeout 5m -v \
		-run 'Smoke|TestClientLifecycle|TestClientShortCutKeepsSession|TestClientLongCutLosesSession|TestMutexExclusion|TestCuratorInteropMutex' \
		./integration/ >>"$log" 2>&1 || status=1
	ZK_BACKEND=local go test -race -count=1 -timeout 5m -v -run 'TestBackends|TestTLSCluster' ./zktest/ >>"$log" 2>&1 || status=1
	# TLS and ACLs on a real server, on both backends: the whole package again.
	ZK_BACKEND=local go test -race -count=1 -timeout 5m -v ./integration/securityit/ >>"$log" 2>&1 || status=1
fi
for dir in "${contrib[@]}"; do
	echo "test: go test -race ./... in $dir with ZK_BACKEND=local"
	(cd "$dir" && env "$workspace" ZK_BACKEND=local go test -race -count=1 -timeout 5m -v ./...) >>"$log" 2>&1 || status=1
done

# The same suites on ZooKeeper 3.9 as on Debian's 3.8.
echo "test: wire, cache, given-up waits and election suites on ZooKeeper 3.9.3 (ZK_VERSION, local backend)"
ZK_BACKEND=local ZK_VERSION=3.9.3 go test -race -count=1 -timeout 10m -v ./client/internal/wire/ ./integration/cacheit/ ./integration/abandonit/ >>"$log" 2>&1 || status=1
ZK_BACKEND=local ZK_VERSION=3.9.3 go test -race -count=1 -timeout 10m -v \
	-run '^(TestElection|TestLatch|TestRun|TestClientPersistent)' ./integration/ >>"$log" 2>&1 || status=1

grep -hE "zktest: backend=[a-z]+ .*servers=[0-9]+ addrs=" "$log" | sed 's/^.*zktest: /test: served by: /' | sort | uniq -c
grep -E '^(ok|FAIL|---)[[:space:]]' "$log" | grep -v -- '--- PASS' || true
# The chaos scenarios' summary lines (seed, faults, checks): a failed one reruns with CHAOS_SEED.
grep -hoE 'chaos [a-z]+ seed=[0-9]+ .*' "$log" | sed 's/^/test: /' || true
passed=$(grep -c -- '--- PASS' "$log")
failed=$(grep -c -- '--- FAIL' "$log")
skipped=$(grep -c -- '--- SKIP' "$log")
if [ "$failed" -gt 0 ] || [ "$status" -ne 0 ]; then
	if grep -q 'WARNING: DATA RACE' "$log"; then
		echo "test: data races (the first reports):"
		grep -A70 'WARNING: DATA RACE' "$log" | head -250
	fi
	echo "test: failures; the end of the log:"
	grep -B2 -A30 -- '--- FAIL' "$log" | head -300
	tail -40 "$log"
	status=1
fi
if [ "$skipped" -gt 0 ]; then
	echo "test: SKIPPED TESTS ARE NOT ALLOWED:"
	grep -A3 -- '--- SKIP' "$log"
	status=1
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $status
