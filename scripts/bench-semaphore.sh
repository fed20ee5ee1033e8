#!/usr/bin/env bash
# Semaphore benchmark, side by side in one run on one server: the raw floor
# (zkbench -recipe semfloor), zkrecipes' recipes/semaphore (-recipe
# semaphore) and Curator 5.4's InterProcessSemaphoreV2 (-recipe
# curator-semaphore, a java process), each worker with a session of its own,
# acquire then release at once.
#
# It starts one local ZooKeeper 3.8 (java QuorumPeerMain from Debian's
# zookeeper package, configured as zktest's local backend does), warms it
# up, then for each of (W=1,L=5), (W=10,L=5), (W=20,L=2) runs the three
# recipes ROUNDS times (default 3), rotating their order every round, each
# measurement capped at BUDGET (default 5s). It prints every result line, then
# a markdown table of the medians, with the machine's load before and after.
#
#   bash scripts/bench-semaphore.sh            # about 3-4 minutes
#   ROUNDS=5 BUDGET=3s bash scripts/bench-semaphore.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
ROUNDS="${ROUNDS:-3}"
BUDGET="${BUDGET:-5s}"

bash scripts/install-deps.sh >&2

source scripts/bench-zk.sh
bench_zk_start semaphore

load_before="$(uptime)"
echo "# ZooKeeper 3.8 (Debian) at $zk; rounds=$ROUNDS budget=$BUDGET; $(nproc) cores; load before: ${load_before##*load average: }"

bench() { # recipe workers max iters warmup
	if ! "$work/zkbench" -zk "$zk" -recipe "$1" -workers "$2" -max "$3" -iters "$4" -warmup "$5" -budget "$BUDGET" 2>>"$work/stderr.log"; then
		echo "bench-semaphore: zkbench -recipe $1 -workers $2 -max $3 failed:" >&2
		tail -30 "$work/stderr.log" >&2
		exit 1
	fi
}

# The server's JIT compiles its hot paths during the first thousands of
# requests, and javac runs once: warm up with every recipe, unmeasured.
for r in semfloor semaphore curator-semaphore; do
	bench "$r" 1 5 500 0 >/dev/null
done

recipes=(semfloor semaphore curator-semaphore)
# workers max iters-per-worker warm-up-per-worker: 500 unmeasured cycles in
# all before each measurement, so that a fresh JVM's Curator is measured
# compiled (with 100 it measured up to a third slower at W=1).
runs=("1 5 1000 500" "10 5 100 50" "20 2 50 25")
results="$work/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
	for run in "${runs[@]}"; do
		read -r w l iters warm <<<"$run"
		for k in 0 1 2; do
			r="${recipes[$(((k + round) % 3))]}"
			line="$(bench "$r" "$w" "$l" "$iters" "$warm")"
			echo "$line"
			echo "W=$w,L=$l $line round=$round" >>"$results"
		done
	done
done
load_after="$(uptime)"

sel() { grep "^W=$1,L=$2 recipe=$3 " "$results" || true; }
med() { sel "$1" "$2" "$3" | field "$4" | median; }
sum() { sel "$1" "$2" "$3" | field "$4" | awk '{s+=$1} END {print s+0}'; }
peak() { sel "$1" "$2" "$3" | field "$4" | sort -g | tail -1; }

echo
echo "Medians of $ROUNDS rounds, each measurement at most $BUDGET; one local ZooKeeper 3.8; each worker its own session; acquire then release at once."
echo "Load before: ${load_before##*load average: }; after: ${load_after##*load average: } ($(nproc) cores)."
echo
echo "| run | floor ops/s | Go ops/s | Curator ops/s | Go ÷ Curator | target | Go ÷ Curator by round | Go acquire p50/p99 ms | Curator p50/p99 ms | violations Go/Curator (max inside) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for run in "${runs[@]}"; do
	read -r w l _ _ <<<"$run"
	f="$(med "$w" "$l" semfloor ops_per_s)"
	g="$(med "$w" "$l" semaphore ops_per_s)"
	c="$(med "$w" "$l" curator-semaphore ops_per_s)"
	target=2
	[ "$w" -ge 20 ] && target=1.5
	ratio="$(awk -v g="$g" -v c="$c" 'BEGIN {if (c > 0) printf "%.2f", g/c; else print "nan"}')"
	rounds=""
	for round in $(seq "$ROUNDS"); do
		rg="$(sel "$w" "$l" semaphore | grep " round=$round\$" | field ops_per_s)"
		rc="$(sel "$w" "$l" curator-semaphore | grep " round=$round\$" | field ops_per_s)"
		rounds="$rounds${rounds:+, }$(awk -v g="$rg" -v c="$rc" 'BEGIN {if (c > 0) printf "%.2f", g/c; else print "nan"}')"
	done
	met="$(awk -v r="$ratio" -v t="$target" 'BEGIN {print (r >= t) ? "≥" t "× met" : "≥" t "× MISSED"}')"
	printf '| W=%s, L=%s | %.0f | %.0f | %.0f | %s× | %s | %s | %.1f / %.1f | %.1f / %.1f | %s / %s (%s / %s) |\n' \
		"$w" "$l" "$f" "$g" "$c" "$ratio" "$met" "$rounds" \
		"$(med "$w" "$l" semaphore acquire_p50_ms)" "$(med "$w" "$l" semaphore acquire_p99_ms)" \
		"$(med "$w" "$l" curator-semaphore acquire_p50_ms)" "$(med "$w" "$l" curator-semaphore acquire_p99_ms)" \
		"$(sum "$w" "$l" semaphore violations)" "$(sum "$w" "$l" curator-semaphore violations)" \
		"$(peak "$w" "$l" semaphore max_inside)" "$(peak "$w" "$l" curator-semaphore max_inside)"
done
if [ -s "$work/stderr.log" ]; then
	echo
	echo "zkbench's warnings (last 5 of $(wc -l <"$work/stderr.log")):"
	tail -5 "$work/stderr.log"
fi
