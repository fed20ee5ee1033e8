#!/usr/bin/env bash
# Tree cache benchmark, side by side in one run on one server: zkrecipes'
# recipes/cache (zkbench -recipe cache: one persistent recursive watch)
# and Curator 5.4's CuratorCache (-recipe curator-cache, a java process: one
# persistent recursive watch), each zkbench a process of its own.
#
# It starts one local ZooKeeper 3.8 (java QuorumPeerMain from Debian's
# zookeeper package, configured as zktest's local backend does), warms it
# up, then runs ROUNDS rounds (default 3), Go first in odd rounds and
# Curator first in even ones, of:
#
#   init     time to initialized, trees of 1,000 and 10,000 leaves (100 per
#            parent, so 1,011 and 10,101 cached nodes), 100 bytes on every
#            node: INIT_WARMUP unmeasured then INIT_ITERS measured loads, each
#            by a new session; the line gives their median
#   latency  setData -> Changed event, 100 leaves (10 per parent, 111
#            nodes), 1 cache and 100 caches each on its own session:
#            LAT_WARMUP unmeasured then LAT_ITERS measured changes, one at a
#            time
#   heap     heap per cached node, 10,000 leaves, with data and without
#
# init lines also give cpu_ms, the process's CPU time per load (the JVM's,
# JIT and GC included, for Curator); latency lines server_watches, the
# server's count of data watches with every cache loaded (wchs counts no
# child watches: Go's cache holds as many child watches again).
#
# It prints every result line, then a markdown table of the medians over the
# rounds and Go ÷ Curator, with the machine's load before and after.
#
#   bash scripts/bench-cache.sh                 # about 6-8 minutes
#   ROUNDS=5 bash scripts/bench-cache.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
ROUNDS="${ROUNDS:-3}"
INIT_ITERS="${INIT_ITERS:-5}"
INIT_WARMUP="${INIT_WARMUP:-2}"
LAT_ITERS="${LAT_ITERS:-300}"
LAT_WARMUP="${LAT_WARMUP:-100}"

bash scripts/install-deps.sh >&2

source scripts/bench-zk.sh
bench_zk_start cache

load_before="$(uptime)"
echo "# ZooKeeper 3.8 (Debian) at $zk; rounds=$ROUNDS init=$INIT_WARMUP+$INIT_ITERS latency=$LAT_WARMUP+$LAT_ITERS; $(nproc) cores; load before: ${load_before##*load average: }"

bench() { # recipe args...
	local r="$1"
	shift
	if ! "$work/zkbench" -zk "$zk" -recipe "$r" "$@" 2>>"$work/stderr.log"; then
		echo "bench-cache: zkbench -recipe $r $* failed:" >&2
		tail -30 "$work/stderr.log" >&2
		exit 1
	fi
}

# The measurements: a name for the table, then zkbench's flags.
runs=(
	"init1k -measure init -nodes 1000 -iters $INIT_ITERS -warmup $INIT_WARMUP"
	"init10k -measure init -nodes 10000 -iters $INIT_ITERS -warmup $INIT_WARMUP"
	"lat1 -measure latency -nodes 100 -fanout 10 -workers 1 -iters $LAT_ITERS -warmup $LAT_WARMUP"
	"lat100 -measure latency -nodes 100 -fanout 10 -workers 100 -iters $LAT_ITERS -warmup $LAT_WARMUP"
	"heap10k -measure heap -nodes 10000"
	"heap10kND -measure heap -nodes 10000 -nodata"
)

# The server's JIT compiles its hot paths during the first thousands of
# requests, and javac runs once: warm up with both recipes, unmeasured.
for r in cache curator-cache; do
	bench "$r" -measure init -nodes 10000 -iters 2 -warmup 0 >/dev/null
	bench "$r" -measure latency -nodes 100 -fanout 10 -workers 10 -iters 200 -warmup 0 >/dev/null
done

results="$work/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
	order=(cache curator-cache)
	[ $((round % 2)) -eq 0 ] && order=(curator-cache cache)
	for run in "${runs[@]}"; do
		read -r name flags <<<"$run"
		for r in "${order[@]}"; do
			# shellcheck disable=SC2086
			line="$(bench "$r" $flags)"
			echo "$line"
			echo "$name $line round=$round" >>"$results"
		done
	done
done
load_after="$(uptime)"

sel() { grep "^$1 recipe=$2 " "$results" || true; }
med() { sel "$1" "$2" | field "$3" | median; }
# byround NAME KEY: Go ÷ Curator of KEY in each round.
byround() {
	local out="" g c
	for round in $(seq "$ROUNDS"); do
		g="$(sel "$1" cache | grep " round=$round\$" | field "$2")"
		c="$(sel "$1" curator-cache | grep " round=$round\$" | field "$2")"
		out="$out${out:+, }$(ratio "$g" "$c")"
	done
	echo "$out"
}
row() { # label name key unit
	local g c
	g="$(med "$2" cache "$3")"
	c="$(med "$2" curator-cache "$3")"
	printf '| %s | %s %s | %s %s | %s× | %s |\n' "$1" "$g" "$4" "$c" "$4" "$(ratio "$g" "$c")" "$(byround "$2" "$3")"
}

echo
echo "Medians of $ROUNDS rounds; one local ZooKeeper 3.8; every cache on a session of its own; Go ÷ Curator below 1 is Go ahead."
echo "Load before: ${load_before##*load average: }; after: ${load_after##*load average: } ($(nproc) cores)."
echo
echo "| figure | Go (recipes/cache) | Curator (CuratorCache) | Go ÷ Curator | Go ÷ Curator by round |"
echo "|---|---:|---:|---:|---|"
row "time to initialized, 1,011 nodes (median of $INIT_ITERS loads)" init1k init_p50_ms ms
row "time to initialized, 10,101 nodes (median of $INIT_ITERS loads)" init10k init_p50_ms ms
row "first load of the process, 10,101 nodes" init10k cold_ms ms
row "process CPU per load, 1,011 nodes (median)" init1k cpu_ms ms
row "process CPU per load, 10,101 nodes (median)" init10k cpu_ms ms
row "change → event p50, 1 cache" lat1 event_p50_ms ms
row "change → event p99, 1 cache" lat1 event_p99_ms ms
row "change → event p50, 100 caches" lat100 event_p50_ms ms
row "change → event p99, 100 caches" lat100 event_p99_ms ms
row "server's data watches, 100 caches of 111 nodes (wchs)" lat100 server_watches ""
row "heap per cached node, 10,101 nodes, 100-byte data" heap10k heap_per_node_bytes B
row "heap per cached node, 10,101 nodes, without data" heap10kND heap_per_node_bytes B
row "time to initialized within the heap run, 10,101 nodes" heap10k init_ms ms
printf '| of Go'"'"'s heap per node: the connection'"'"'s watch table | %s B | – | | |\n' "$(med heap10k cache watch_table_per_node_bytes)"
if [ -s "$work/stderr.log" ]; then
	echo
	echo "zkbench's warnings (last 5 of $(wc -l <"$work/stderr.log")):"
	tail -5 "$work/stderr.log"
fi
