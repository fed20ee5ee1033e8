#!/usr/bin/env bash
# Counter benchmark, side by side in one run on one server: zkrecipes'
# recipes/counter (zkbench -recipe counter), the same with a new handle for
# every increment, so that each update reads first as Curator's do
# (-recipe counter -fresh: what the remembered version is worth), and
# Curator 5.4's DistributedAtomicLong (-recipe curator-counter, a java
# process). Every worker has a session of its own and increments one
# counter in a loop; both sides use ExponentialBackoff(1 ms, 29) for the
# optimistic tries.
#
# It starts one local ZooKeeper 3.8 (java QuorumPeerMain from Debian's
# zookeeper package, configured as zktest's local backend does), warms it
# up, then for each run below measures the three ROUNDS times (default 3),
# rotating their order every round, each measurement BUDGET long (default
# 4s) after 200 unmeasured increments per worker:
#
#   W=1           one worker
#   W=10          ten workers
#   W=10 think    ten workers, each pausing up to 20 ms before each increment
#                 (so that they take turns, and a remembered version is old)
#   W=10 lock     ten workers, 3 optimistic retries, then the promoted lock
#
# It prints every result line, then a markdown table of the medians, with
# the machine's load before and after.
#
#   bash scripts/bench-counter.sh            # about 5 minutes
#   ROUNDS=5 BUDGET=5s bash scripts/bench-counter.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
ROUNDS="${ROUNDS:-3}"
BUDGET="${BUDGET:-4s}"

bash scripts/install-deps.sh >&2

source scripts/bench-zk.sh
bench_zk_start counter

load_before="$(uptime)"
echo "# ZooKeeper 3.8 (Debian) at $zk; rounds=$ROUNDS budget=$BUDGET; $(nproc) cores; load before: ${load_before##*load average: }"

bench() { # variant workers extra-args...
	local variant="$1" workers="$2"
	shift 2
	local args=(-recipe counter)
	case "$variant" in
	go-fresh) args=(-recipe counter -fresh) ;;
	curator) args=(-recipe curator-counter) ;;
	esac
	if ! "$work/zkbench" -zk "$zk" "${args[@]}" -workers "$workers" -iters 10000000 -warmup 200 -budget "$BUDGET" \
		-retry-base 1ms -retries 29 "$@" 2>>"$work/stderr.log"; then
		echo "bench-counter: zkbench ${args[*]} -workers $workers $* failed:" >&2
		tail -30 "$work/stderr.log" >&2
		exit 1
	fi
}

# The server's JIT compiles its hot paths during the first thousands of
# requests, and javac runs once: warm up with every variant, unmeasured.
for v in go go-fresh curator; do
	BUDGET=2s bench "$v" 1 >/dev/null
done

variants=(go go-fresh curator)
# name|workers|extra args
runs=("W=1|1|" "W=10|10|" "W=10 think|10|-think 20ms" "W=10 lock|10|-retries 3 -lock")
results="$work/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
	for run in "${runs[@]}"; do
		IFS='|' read -r name w extra <<<"$run"
		for k in 0 1 2; do
			v="${variants[$(((k + round) % 3))]}"
			# shellcheck disable=SC2086 # extra is a list of flags
			line="$(bench "$v" "$w" $extra)"
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
echo "Medians of $ROUNDS rounds, each measurement $BUDGET after 200 unmeasured increments per worker; one local ZooKeeper 3.8; each worker its own session; optimistic tries under ExponentialBackoff(1 ms, 29) on both sides (W=10 lock: 3 retries, then the promoted lock under the same policy)."
echo "Load before: ${load_before##*load average: }; after: ${load_after##*load average: } ($(nproc) cores)."
echo
echo "| run | Go incs/s | Go, reading first | Curator incs/s | Go ÷ Curator | by round | Go p50 / p99 ms | Curator p50 / p99 ms | writes per increment Go / Curator | fewest–most by one worker Go / Curator | violations Go / Curator |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for run in "${runs[@]}"; do
	IFS='|' read -r name _ _ <<<"$run"
	g="$(med "$name" go incs_per_s)"
	f="$(med "$name" go-fresh incs_per_s)"
	c="$(med "$name" curator incs_per_s)"
	rounds=""
	for round in $(seq "$ROUNDS"); do
		rg="$(sel "$name" go | grep " round=$round\$" | field incs_per_s)"
		rc="$(sel "$name" curator | grep " round=$round\$" | field incs_per_s)"
		rounds="$rounds${rounds:+, }$(ratio "$rg" "$rc")"
	done
	printf '| %s | %.0f | %.0f | %.0f | %s× | %s | %.2f / %.1f | %.2f / %.1f | %.2f / %.2f | %s–%s / %s–%s | %s / %s |\n' \
		"$name" "$g" "$f" "$c" "$(ratio "$g" "$c")" "$rounds" \
		"$(med "$name" go inc_p50_ms)" "$(med "$name" go inc_p99_ms)" \
		"$(med "$name" curator inc_p50_ms)" "$(med "$name" curator inc_p99_ms)" \
		"$(med "$name" go tries_per_inc)" "$(med "$name" curator tries_per_inc)" \
		"$(med "$name" go worker_min)" "$(med "$name" go worker_max)" \
		"$(med "$name" curator worker_min)" "$(med "$name" curator worker_max)" \
		"$(sum "$name" go violations)" "$(sum "$name" curator violations)"
done
if [ -s "$work/stderr.log" ]; then
	echo
	echo "zkbench's warnings (last 5 of $(wc -l <"$work/stderr.log")):"
	tail -5 "$work/stderr.log"
fi
