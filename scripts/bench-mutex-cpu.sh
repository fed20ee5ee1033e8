#!/usr/bin/env bash
# The mutex's client cost before and after, side by side: BenchmarkMutex
# (one worker's uncontended lock/unlock cycle on zkharness's local
# ZooKeeper 3.8) of cmd/zkbench's tests built at BEFORE (default f1051b9,
# the last commit on go-zookeeper's connection) and at the working tree,
# in alternating rounds (each its own process and server). It prints every
# line, then the medians of ns/op, allocs/op and cpu-us/op: the process's
# user + system CPU time per cycle, from getrusage around the benchmark
# loop (every thread of the client's process: its goroutines, the runtime
# and the GC; the server is another process, and load on the machine does
# not stretch CPU time as it does the wall clock). The BEFORE tree gets
# this tree's bench_test.go, whose benchmarks report cpu-us/op.
#
#   bash scripts/bench-mutex-cpu.sh                       # about 5 minutes
#   BEFORE=<rev> ROUNDS=8 COUNT=3 CYCLES=2000 bash scripts/bench-mutex-cpu.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
BEFORE="${BEFORE:-f1051b9}"
ROUNDS="${ROUNDS:-6}"
COUNT="${COUNT:-3}"
CYCLES="${CYCLES:-2000}"

bash scripts/install-deps.sh >&2

work="$(mktemp -d /tmp/bench-mutex-cpu.XXXXXX)"
tree="$work/before"
cleanup() {
	git worktree remove --force "$tree" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

go test -c -o "$work/after.test" ./cmd/zkbench
git worktree add --detach -q "$tree" "$BEFORE"
cp cmd/zkbench/bench_test.go "$tree/cmd/zkbench/bench_test.go"
(cd "$tree" && go test -c -o "$work/before.test" ./cmd/zkbench)

out="$work/lines"
: >"$out"
load_before="$(uptime)"
echo "# BenchmarkMutex, before=$BEFORE after=$(git rev-parse --short HEAD)$(git diff --quiet || echo +changes); rounds=$ROUNDS count=$COUNT cycles=$CYCLES; $(nproc) cores; load before: ${load_before##*load average: }"
for round in $(seq "$ROUNDS"); do
	order="before after"
	[ $((round % 2)) -eq 0 ] && order="after before"
	for v in $order; do
		(cd cmd/zkbench && ZK_BACKEND=local "$work/$v.test" -test.run '^$' -test.bench 'BenchmarkMutex$' \
			-test.benchmem -test.count "$COUNT" -test.benchtime "${CYCLES}x" 2>&1) |
			grep '^BenchmarkMutex' | sed "s/^/$v /" | tee -a "$out"
	done
done
load_after="$(uptime)"

# med VERSION UNIT: the median of the field before UNIT over VERSION's lines.
med() {
	grep "^$1 " "$out" | awk -v u="$2" '{for (i = 2; i <= NF; i++) if ($i == u) print $(i - 1)}' | sort -g |
		awk '{a[NR] = $1} END {if (NR % 2) printf "%.1f\n", a[(NR + 1) / 2]; else printf "%.1f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}
echo
echo "Medians of $((ROUNDS * COUNT)) runs of $CYCLES cycles each; load before ${load_before##*load average: }, after ${load_after##*load average: }."
echo
echo "| per lock/unlock cycle | before ($BEFORE) | after | after ÷ before |"
echo "|---|---:|---:|---:|"
for unit in ns/op allocs/op cpu-us/op; do
	b="$(med before "$unit")"
	a="$(med after "$unit")"
	printf '| %s | %s | %s | %s× |\n' "$unit" "$b" "$a" "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", a / b}')"
done
