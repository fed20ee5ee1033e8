#!/usr/bin/env bash
# The lock's speed before and after a change, side by side in one run on one
# server: cmd/zkbench is built at BEFORE (default f154041, the lock before
# the safety fixes) and at the working tree, and the two binaries alternate
# (their order swapped every round) on the raw floor and the mutex with 1
# worker (1000 cycles) and the mutex with 10 workers (300 cycles each), each
# worker with a session of its own. It prints every result line, then a
# markdown table of the medians, with the machine's load before and after.
#
#   bash scripts/bench-before-after.sh                  # about 3 minutes
#   BEFORE=<rev> ROUNDS=8 bash scripts/bench-before-after.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
BEFORE="${BEFORE:-f154041}"
ROUNDS="${ROUNDS:-6}"

bash scripts/install-deps.sh >&2

source scripts/bench-zk.sh
bench_zk_start before-after
mv "$work/zkbench" "$work/zkbench-after"
tree="$work/before-tree"
git worktree add --detach -q "$tree" "$BEFORE"
trap 'git worktree remove --force "$tree" 2>/dev/null || true; bench_zk_cleanup' EXIT
(cd "$tree" && go build -o "$work/zkbench-before" ./cmd/zkbench)

load_before="$(uptime)"
echo "# ZooKeeper 3.8 (Debian) at $zk; before=$BEFORE after=$(git rev-parse --short HEAD)$(git diff --quiet || echo +changes); rounds=$ROUNDS; $(nproc) cores; load before: ${load_before##*load average: }"

bench() { # build recipe workers iters
	if ! "$work/zkbench-$1" -zk "$zk" -recipe "$2" -workers "$3" -iters "$4" 2>>"$work/stderr.log"; then
		echo "bench-before-after: zkbench-$1 -recipe $2 -workers $3 failed:" >&2
		tail -30 "$work/stderr.log" >&2
		exit 1
	fi
}

# Warm the server's JIT up, unmeasured.
for b in before after; do
	bench "$b" mutex 1 500 >/dev/null
	bench "$b" mutex 10 50 >/dev/null
done

runs=("floor 1 1000" "mutex 1 1000" "mutex 10 300")
results="$work/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
	builds=(before after)
	[ $((round % 2)) -eq 0 ] && builds=(after before)
	for run in "${runs[@]}"; do
		read -r r w iters <<<"$run"
		for b in "${builds[@]}"; do
			line="$(bench "$b" "$r" "$w" "$iters")"
			echo "$b $line"
			echo "$b $line round=$round" >>"$results"
		done
	done
done
load_after="$(uptime)"

sel() { grep "^$1 recipe=$2 workers=$3 " "$results" || true; }
med() { sel "$1" "$2" "$3" | field "$4" | median; }
# ratio B: the median over rounds of mutex ÷ floor ops/s, each round's own.
ratio() {
	for round in $(seq "$ROUNDS"); do
		m=$(grep "^$1 recipe=mutex workers=1 .* round=$round\$" "$results" | field ops_per_s)
		f=$(grep "^$1 recipe=floor workers=1 .* round=$round\$" "$results" | field ops_per_s)
		awk -v m="$m" -v f="$f" 'BEGIN {printf "%.3f\n", m / f}'
	done | median
}

echo
echo "Medians of $ROUNDS rounds, one local ZooKeeper 3.8, each worker its own session. Load before: ${load_before##*load average: }; after: ${load_after##*load average: } ($(nproc) cores)."
echo
echo "| run | before ($BEFORE) | after | after ÷ before |"
echo "| --- | ---: | ---: | ---: |"
row() { # label before after
	echo "| $1 | $2 | $3 | $(awk -v a="$3" -v b="$2" 'BEGIN {printf "%.2f", a / b}') |"
}
row "floor, 1 worker, ops/s" "$(med before floor 1 ops_per_s)" "$(med after floor 1 ops_per_s)"
row "mutex, 1 worker, ops/s" "$(med before mutex 1 ops_per_s)" "$(med after mutex 1 ops_per_s)"
row "mutex ÷ floor, per round" "$(ratio before)" "$(ratio after)"
row "mutex, 10 workers, ops/s" "$(med before mutex 10 ops_per_s)" "$(med after mutex 10 ops_per_s)"
row "mutex, 10 workers, handoff p50 ms" "$(med before mutex 10 handoff_p50_ms)" "$(med after mutex 10 handoff_p50_ms)"
row "mutex, 10 workers, handoff p99 ms" "$(med before mutex 10 handoff_p99_ms)" "$(med after mutex 10 handoff_p99_ms)"
echo
echo "Violations (two holders) in all runs: $(field violations <"$results" | awk '{s+=$1} END {print s+0}')"
