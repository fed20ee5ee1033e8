#!/usr/bin/env bash
# Election benchmark, side by side in one run on one server, each participant
# with a session of its own:
#
#   failover after a clean resign (P participants; the leader resigns, the
#   time until the next leader's term starts), p50 and p99:
#     electfloor     bare go-zookeeper: B watches A's ephemeral node (getData),
#                    A deletes it; delete call -> B's watch event
#     latch          recipes/election Latch: Close call -> the next latch's term
#     curator-latch  Curator 5.4's LeaderLatch: close() -> the next isLeader
#   terms per second (P participants, a lead function that returns at once):
#     run            recipes/election Run
#     curator-run    Curator 5.4's LeaderSelector with autoRequeue
#   failover after a crash (once, after the rounds; CRASHES kills, default
#   20, at a session timeout of CRASH_SESSION, default 1s): the leader's
#   connection goes silent; from the crash to the next leader's term:
#     latchcrash     recipes/election Latch
#
# It starts one local ZooKeeper 3.8 (java QuorumPeerMain from Debian's
# zookeeper package, configured as zktest's local backend does), warms it
# up, then runs every recipe ROUNDS times (default 3), rotating the order
# within each group every round; each measurement is WARMUP unmeasured terms
# (default 200) then ITERS measured ones (default 200), capped at BUDGET
# (default 5s). It prints every result line, then a markdown table of the
# medians, with the machine's load before and after.
#
#   bash scripts/bench-election.sh            # about 2 minutes
#   ROUNDS=5 P=3 bash scripts/bench-election.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
ROUNDS="${ROUNDS:-3}"
BUDGET="${BUDGET:-5s}"
ITERS="${ITERS:-200}"
WARMUP="${WARMUP:-200}"
P="${P:-5}"
CRASHES="${CRASHES:-20}"
CRASH_SESSION="${CRASH_SESSION:-1s}"

bash scripts/install-deps.sh >&2

source scripts/bench-zk.sh
bench_zk_start election

load_before="$(uptime)"
echo "# ZooKeeper 3.8 (Debian) at $zk; rounds=$ROUNDS P=$P iters=$ITERS warmup=$WARMUP budget=$BUDGET; $(nproc) cores; load before: ${load_before##*load average: }"

bench() { # recipe iters warmup
	if ! "$work/zkbench" -zk "$zk" -recipe "$1" -participants "$P" -iters "$2" -warmup "$3" -budget "$BUDGET" 2>>"$work/stderr.log"; then
		echo "bench-election: zkbench -recipe $1 -participants $P failed:" >&2
		tail -30 "$work/stderr.log" >&2
		exit 1
	fi
}

# The server's JIT compiles its hot paths during the first thousands of
# requests, and javac runs once: warm up with every recipe, unmeasured.
for r in electfloor latch curator-latch run curator-run; do
	bench "$r" 300 0 >/dev/null
done

failover=(electfloor latch curator-latch)
throughput=(run curator-run)
results="$work/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
	for k in 0 1 2; do
		r="${failover[$(((k + round) % 3))]}"
		line="$(bench "$r" "$ITERS" "$WARMUP")"
		echo "$line"
		echo "$line round=$round" >>"$results"
	done
	for k in 0 1; do
		r="${throughput[$(((k + round) % 2))]}"
		line="$(bench "$r" "$ITERS" "$WARMUP")"
		echo "$line"
		echo "$line round=$round" >>"$results"
	done
done
crashline=""
if [ "$CRASHES" -gt 0 ]; then
	if ! crashline="$("$work/zkbench" -zk "$zk" -recipe latchcrash -participants "$P" -iters "$CRASHES" -warmup 0 -session "$CRASH_SESSION" 2>>"$work/stderr.log")"; then
		echo "bench-election: zkbench -recipe latchcrash failed:" >&2
		tail -30 "$work/stderr.log" >&2
		exit 1
	fi
	echo "$crashline"
fi
load_after="$(uptime)"

sel() { grep "^recipe=$1 " "$results" || true; }
med() { sel "$1" | field "$2" | median; }
sum() { sel "$1" | field "$2" | awk '{s+=$1} END {print s+0}'; }
# byround RECIPE_A RECIPE_B KEY: A's KEY / B's KEY, per round.
byround() {
	local out="" a b
	for round in $(seq "$ROUNDS"); do
		a="$(sel "$1" | grep " round=$round\$" | field "$3")"
		b="$(sel "$2" | grep " round=$round\$" | field "$3")"
		out="$out${out:+, }$(ratio "$a" "$b")"
	done
	echo "$out"
}

f50="$(med electfloor failover_p50_ms)"; f99="$(med electfloor failover_p99_ms)"
g50="$(med latch failover_p50_ms)"; g99="$(med latch failover_p99_ms)"
c50="$(med curator-latch failover_p50_ms)"; c99="$(med curator-latch failover_p99_ms)"
gt="$(med run terms_per_s)"; ct="$(med curator-run terms_per_s)"
gr50="$(med run failover_p50_ms)"; gr99="$(med run failover_p99_ms)"
cr50="$(med curator-run failover_p50_ms)"; cr99="$(med curator-run failover_p99_ms)"
t1="$(verdict "$(rawratio "$g50" "$c50")" "<=" 0.5 "≤0.5× Curator")"
t2="$(verdict "$(rawratio "$g50" "$f50")" "<=" 1.5 "≤1.5× floor")"
t3="$(verdict "$(rawratio "$gt" "$ct")" ">=" 2 "≥2× Curator")"

echo
echo "Medians of $ROUNDS rounds; one local ZooKeeper 3.8; P=$P participants, each its own session; $ITERS measured terms after $WARMUP unmeasured, each measurement at most $BUDGET."
echo "Load before: ${load_before##*load average: }; after: ${load_after##*load average: } ($(nproc) cores)."
echo
echo "| run | floor | Go | Curator | Go vs Curator | Go vs Curator by round | targets | violations Go / Curator |"
echo "|---|---|---|---|---|---|---|---|"
printf '| clean-resign failover p50, ms | %.2f | %.2f | %.2f | %s× | %s | %s; %s (%s× floor) | %s / %s |\n' \
	"$f50" "$g50" "$c50" "$(ratio "$g50" "$c50")" "$(byround latch curator-latch failover_p50_ms)" "$t1" "$t2" "$(ratio "$g50" "$f50")" \
	"$(sum latch violations)" "$(sum curator-latch violations)"
printf '| clean-resign failover p99, ms | %.2f | %.2f | %.2f | %s× | %s | – | |\n' \
	"$f99" "$g99" "$c99" "$(ratio "$g99" "$c99")" "$(byround latch curator-latch failover_p99_ms)"
printf '| terms/s, lead returns at once | – | %.0f | %.0f | %s× | %s | %s | %s / %s |\n' \
	"$gt" "$ct" "$(ratio "$gt" "$ct")" "$(byround run curator-run terms_per_s)" "$t3" \
	"$(sum run violations)" "$(sum curator-run violations)"
printf '| run: term end → next term p50 / p99, ms | – | %.2f / %.2f | %.2f / %.2f | %s× | %s | – | |\n' \
	"$gr50" "$gr99" "$cr50" "$cr99" "$(ratio "$gr50" "$cr50")" "$(byround run curator-run failover_p50_ms)"
if [ -n "$crashline" ]; then
	# The server's tick is the tickTime of zoo.cfg above.
	tick="$(sed -n 's/^tickTime=//p' "$work/zk1/zoo.cfg")"
	cs="$(echo "$crashline" | field session_ms)"
	bound="$((cs + tick + 100))"
	cp50="$(echo "$crashline" | field failover_p50_ms)"
	printf '| crash failover p50 / p99, ms (%s kills, session %s ms) | – | %.0f / %.0f | – | – | – | %s (session + tick %s + 100 = %s ms) | %s / – |\n' \
		"$(echo "$crashline" | field terms)" "$cs" "$cp50" "$(echo "$crashline" | field failover_p99_ms)" \
		"$(verdict "$cp50" "<=" "$bound" "p50 ≤ bound")" "$tick" "$bound" "$(echo "$crashline" | field violations)"
fi
if [ -s "$work/stderr.log" ]; then
	echo
	echo "zkbench's warnings (last 5 of $(wc -l <"$work/stderr.log")):"
	tail -5 "$work/stderr.log"
fi
