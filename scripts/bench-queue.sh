#!/usr/bin/env bash
# Queue benchmark, side by side in one run on one server: zkrecipes'
# recipes/queue (zkbench -recipe queue) and Curator 5.4's DistributedQueue
# (-recipe curator-queue, a java process), W producers and W consumers, each
# with a session of its own, on one queue: puts are synchronous on both
# sides (Curator's putInBackground(false)) and each consumer takes one item
# at a time (Curator's default direct executor), its handler returning at
# once.
#
# It starts one local ZooKeeper 3.8 (java QuorumPeerMain from Debian's
# zookeeper package, configured as zkharness's local backend does), warms it
# up, then for each run below measures both ROUNDS times (default 3),
# rotating their order every round. Each measurement first puts and consumes
# WARM items (default 2,000) unmeasured in the same process, so that
# Curator's JVM is warm, then ITEMS (default 3,000) more, at most BUDGET
# (default 20s) long:
#
#   W=1 lock-safe     one producer, one consumer, with a lock path
#   W=10 lock-safe    ten producers, ten consumers, with a lock path
#   W=10 no lock      ten and ten, without (an item is removed before its
#                     handler: at most once)
#
# It prints every result line, then a markdown table of the medians, with
# the machine's load before and after.
#
#   bash scripts/bench-queue.sh            # about 4 minutes
#   ROUNDS=5 bash scripts/bench-queue.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
ROUNDS="${ROUNDS:-3}"
BUDGET="${BUDGET:-20s}"
WARM="${WARM:-2000}"
ITEMS="${ITEMS:-3000}"

bash scripts/install-deps.sh >&2

source scripts/bench-zk.sh
bench_zk_start queue

load_before="$(uptime)"
echo "# ZooKeeper 3.8 (Debian) at $zk; rounds=$ROUNDS warm=$WARM items=$ITEMS budget=$BUDGET; $(nproc) cores; load before: ${load_before##*load average: }"

bench() { # recipe workers lock-safe
	local w="$2"
	if ! "$work/zkbench" -zk "$zk" -recipe "$1" -workers "$w" -iters $((ITEMS / w)) -warmup $((WARM / w)) \
		-budget "$BUDGET" -lock-safe="$3" 2>>"$work/stderr.log"; then
		echo "bench-queue: zkbench -recipe $1 -workers $w -lock-safe=$3 failed:" >&2
		tail -30 "$work/stderr.log" >&2
		exit 1
	fi
}

# The server's JIT compiles its hot paths during the first thousands of
# requests, and javac runs once: warm up with both, unmeasured.
for r in queue curator-queue; do
	ITEMS=500 WARM=500 bench "$r" 1 true >/dev/null
done

recipes=(queue curator-queue)
# name|workers|lock-safe
runs=("W=1 lock-safe|1|true" "W=10 lock-safe|10|true" "W=10 no lock|10|false")
results="$work/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
	for run in "${runs[@]}"; do
		IFS='|' read -r name w safe <<<"$run"
		for k in 0 1; do
			r="${recipes[$(((k + round) % 2))]}"
			line="$(bench "$r" "$w" "$safe")"
			echo "$line"
			echo "$name|$r|$line round=$round" >>"$results"
		done
	done
done
load_after="$(uptime)"

sel() { grep -F "$1|$2|" "$results" | cut -d'|' -f3- || true; }
med() { sel "$1" "$2" | field "$3" | median; }
sum() { sel "$1" "$2" | field "$3" | awk '{s+=$1} END {print s+0}'; }

echo
echo "Medians of $ROUNDS rounds; one local ZooKeeper 3.8; W producers and W consumers, each its own session; $WARM items put and consumed unmeasured first in each process, then $ITEMS measured (at most $BUDGET)."
echo "Load before: ${load_before##*load average: }; after: ${load_after##*load average: } ($(nproc) cores)."
echo
echo "| run | Go items/s | Curator items/s | Go ÷ Curator | by round | Go latency p50 / p99 ms | Curator p50 / p99 ms | put p50 Go / Curator ms | dups, lost Go / Curator |"
echo "|---|---|---|---|---|---|---|---|---|"
for run in "${runs[@]}"; do
	IFS='|' read -r name _ _ <<<"$run"
	g="$(med "$name" queue items_per_s)"
	c="$(med "$name" curator-queue items_per_s)"
	rounds=""
	for round in $(seq "$ROUNDS"); do
		rg="$(sel "$name" queue | grep " round=$round\$" | field items_per_s)"
		rc="$(sel "$name" curator-queue | grep " round=$round\$" | field items_per_s)"
		rounds="$rounds${rounds:+, }$(ratio "$rg" "$rc")"
	done
	printf '| %s | %.0f | %.0f | %s× | %s | %.1f / %.1f | %.1f / %.1f | %.2f / %.2f | %s, %s / %s, %s |\n' \
		"$name" "$g" "$c" "$(ratio "$g" "$c")" "$rounds" \
		"$(med "$name" queue latency_p50_ms)" "$(med "$name" queue latency_p99_ms)" \
		"$(med "$name" curator-queue latency_p50_ms)" "$(med "$name" curator-queue latency_p99_ms)" \
		"$(med "$name" queue put_p50_ms)" "$(med "$name" curator-queue put_p50_ms)" \
		"$(sum "$name" queue dups)" "$(sum "$name" queue lost)" \
		"$(sum "$name" curator-queue dups)" "$(sum "$name" curator-queue lost)"
done
if [ -s "$work/stderr.log" ]; then
	echo
	echo "zkbench's warnings (last 5 of $(wc -l <"$work/stderr.log")):"
	tail -5 "$work/stderr.log"
fi
