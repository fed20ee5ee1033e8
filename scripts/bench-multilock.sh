#!/usr/bin/env bash
# Multi-lock benchmark, side by side in one run on one server: zkrecipes'
# mutex.Multi (zkbench -recipe multilock) and Curator 5.4's
# InterProcessMultiLock (-recipe curator-multilock, a java process), each
# over the mutexes of the same three paths (PATH/p0, p1, p2; Curator lists
# them in that, sorted, order, so both take them alike). Every worker has a
# session of its own and loops acquire -> check -> release of the whole set.
#
# It starts one local ZooKeeper 3.8 (java QuorumPeerMain from Debian's
# zookeeper package, configured as zktest's local backend does), warms it
# up, then for each run below measures both ROUNDS times (default 3),
# alternating their order every round, each measurement BUDGET long
# (default 4s) after 2,000 unmeasured cycles in all (per worker: 2000/W),
# so that each JVM has run its hot paths 2,000 times before it is measured:
#
#   W=1    one worker: the cycle's own cost (3 acquires, 3 releases)
#   W=10   ten workers on the same three paths: every cycle a handoff
#
# It prints every result line, then a markdown table of the medians, with
# the machine's load before and after.
#
#   bash scripts/bench-multilock.sh            # about 2 minutes
#   ROUNDS=5 BUDGET=5s bash scripts/bench-multilock.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
ROUNDS="${ROUNDS:-3}"
BUDGET="${BUDGET:-4s}"
WARM=2000

bash scripts/install-deps.sh >&2

source scripts/bench-zk.sh
bench_zk_start multilock

load_before="$(uptime)"
echo "# ZooKeeper 3.8 (Debian) at $zk; rounds=$ROUNDS budget=$BUDGET; $(nproc) cores; load before: ${load_before##*load average: }"

bench() { # variant workers
	local variant="$1" workers="$2"
	local recipe=multilock
	[ "$variant" = curator ] && recipe=curator-multilock
	if ! "$work/zkbench" -zk "$zk" -recipe "$recipe" -workers "$workers" -iters 10000000 \
		-warmup $((WARM / workers)) -budget "$BUDGET" 2>>"$work/stderr.log"; then
		echo "bench-multilock: zkbench -recipe $recipe -workers $workers failed:" >&2
		tail -30 "$work/stderr.log" >&2
		exit 1
	fi
}

# The server's JIT compiles its hot paths during the first thousands of
# requests, and javac runs once: warm up with both, unmeasured.
for v in go curator; do
	BUDGET=2s bench "$v" 1 >/dev/null
done

variants=(go curator)
runs=("W=1|1" "W=10|10")
results="$work/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
	for run in "${runs[@]}"; do
		IFS='|' read -r name w <<<"$run"
		for k in 0 1; do
			v="${variants[$(((k + round) % 2))]}"
			line="$(bench "$v" "$w")"
			echo "$v: $line"
			echo "$name|$v|$line round=$round" >>"$results"
		done
	done
done
load_after="$(uptime)"

sel() { grep -F "$1|$2|" "$results" | cut -d'|' -f3- || true; }
med() { sel "$1" "$2" | field "$3" | median; }
sum() { sel "$1" "$2" | field "$3" | awk '{s+=$1} END {print s+0}'; }

echo
echo "Medians of $ROUNDS rounds, each measurement $BUDGET after $WARM unmeasured cycles in all; one local ZooKeeper 3.8; each worker its own session; a cycle takes and releases the mutexes of three paths."
echo "Load before: ${load_before##*load average: }; after: ${load_after##*load average: } ($(nproc) cores)."
echo
echo "| run | Go cycles/s | Curator cycles/s | Go ÷ Curator | by round | Go handoff p50 / p99 ms | Curator handoff p50 / p99 ms | violations Go / Curator |"
echo "|---|---|---|---|---|---|---|---|"
for run in "${runs[@]}"; do
	IFS='|' read -r name _ <<<"$run"
	g="$(med "$name" go ops_per_s)"
	c="$(med "$name" curator ops_per_s)"
	rounds=""
	for round in $(seq "$ROUNDS"); do
		rg="$(sel "$name" go | grep " round=$round\$" | field ops_per_s)"
		rc="$(sel "$name" curator | grep " round=$round\$" | field ops_per_s)"
		rounds="$rounds${rounds:+, }$(ratio "$rg" "$rc")"
	done
	printf '| %s | %.0f | %.0f | %s× | %s | %.2f / %.1f | %.2f / %.1f | %s / %s |\n' \
		"$name" "$g" "$c" "$(ratio "$g" "$c")" "$rounds" \
		"$(med "$name" go handoff_p50_ms)" "$(med "$name" go handoff_p99_ms)" \
		"$(med "$name" curator handoff_p50_ms)" "$(med "$name" curator handoff_p99_ms)" \
		"$(sum "$name" go violations)" "$(sum "$name" curator violations)"
done
if [ -s "$work/stderr.log" ]; then
	echo
	echo "zkbench's warnings (last 5 of $(wc -l <"$work/stderr.log")):"
	tail -5 "$work/stderr.log"
fi
