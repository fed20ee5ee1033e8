#!/usr/bin/env bash
# The locks, the semaphore and the election side by side with go-zookeeper's
# zk.Lock and Curator 5.4 (its jars, in a JVM) on a 3-server ensemble of
# local ZooKeeper 3.8 servers (SERVERS=1: on one server), each worker with a
# session of its own, in one run:
#
#   mutex      W workers (default 10): mutex, gozk (go-zookeeper's Lock),
#              curator-mutex (InterProcessMutex)
#   rwlock     R readers and WR writers (default 8 + 2): rwlock,
#              curator-rwlock (InterProcessReadWriteLock)
#   semaphore  SW workers, SL leases (default 10, 5): semaphore,
#              curator-semaphore (InterProcessSemaphoreV2)
#   election   P participants (default 5), a lead function that returns at
#              once: run, curator-run (LeaderSelector with autoRequeue)
#
# Every recipe is warmed up once, unmeasured (the mutexes MUTEX_WARMUP cycles a
# worker, default 200: 2,000 cycles in each JVM, as in a long-running service;
# the elections RUN_WARMUP terms, default 2,000); then ROUNDS rounds (default 3),
# the order within each group rotating every round. Each measurement is
# capped at BUDGET (default 5s). It prints every result line, then a
# markdown table of the medians with the ratios by round, the participant
# counts, and the machine's load (uptime) before, during and after. Each
# line also gets srv_cpu_us_per_op: the CPU time the servers (the java
# processes, from /proc) used during the whole zkbench run, warm-up and
# sessions included, per cycle (per term) run: what a recipe costs the
# servers, which on a busy machine moves far less than ops/s.
#
#   LOAD=1      start `nproc` CPU-bound busy loops beside the measurements
#               (LOAD=N: N loops); they are killed at exit
#   BEFORE=rev  also measure mutex and run as built at rev (zkbench from
#               `git archive rev`), alternating with the working tree's:
#               the before/after rows
#   ONLY="mutex run"  only these groups (mutex, rwlock, semaphore, run)
#   COUNT=1     afterwards, one pass with zkbench -count: the requests per
#               cycle (per term) by opcode, from the client's side, for
#               mutex, gozk, curator-mutex, run and curator-run
#
#   bash scripts/bench-ensemble.sh                      # about 5 minutes
#   SERVERS=1 ROUNDS=5 LOAD=1 bash scripts/bench-ensemble.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
SERVERS="${SERVERS:-3}"
ROUNDS="${ROUNDS:-3}"
BUDGET="${BUDGET:-5s}"
LOAD="${LOAD:-0}"
BEFORE="${BEFORE:-}"
COUNT="${COUNT:-0}"
W="${W:-10}"
R="${R:-8}"
WR="${WR:-2}"
SW="${SW:-10}"
SL="${SL:-5}"
P="${P:-5}"
ITERS="${ITERS:-100}"     # measured cycles per lock worker
TERMS="${TERMS:-500}"     # measured election terms
MUTEX_WARMUP="${MUTEX_WARMUP:-200}" # unmeasured cycles per worker before the first round: 2,000 with 10 workers, a warm JVM
RUN_WARMUP="${RUN_WARMUP:-2000}"     # unmeasured election terms before the first round
RWITERS="${RWITERS:-50}"  # measured cycles per rwlock worker

bash scripts/install-deps.sh >&2

source scripts/bench-zk.sh
bench_zk_start ensemble "$SERVERS"
if [ -n "$BEFORE" ]; then
	rev="$(git rev-parse --short "$BEFORE")"
	mkdir "$work/before-tree"
	git archive "$rev" | tar -x -C "$work/before-tree"
	(cd "$work/before-tree" && go build -o "$work/zkbench-before" ./cmd/zkbench)
fi
after="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo +changes)"

load() { local u; u="$(uptime)"; echo "${u##*load average: }"; }
loads="$work/loads"
: >"$loads"

# bench NAME: one measurement, printed as one result line. A name ending in
# @before runs the BEFORE build.
bench() {
	local name="$1" bin="$work/zkbench" r="$1" extra=()
	if [[ "$name" == *@before ]]; then
		bin="$work/zkbench-before"
		r="${name%@before}"
	fi
	[ "${COUNTING:-0}" = 1 ] && extra+=(-count)
	local args=(-zk "$zk" -recipe "$r" -budget "$BUDGET" "${extra[@]}")
	case "$r" in
	mutex | gozk | curator-mutex) args+=(-workers "$W" -iters "$ITERS" -warmup "$MUTEX_WARMUP") ;;
	rwlock | curator-rwlock) args+=(-readers "$R" -writers "$WR" -iters "$RWITERS" -warmup 5) ;;
	semaphore | curator-semaphore) args+=(-workers "$SW" -max "$SL" -iters "$ITERS" -warmup 50) ;;
	run | curator-run) args+=(-participants "$P" -iters "$TERMS" -warmup "$RUN_WARMUP") ;;
	esac
	local line cpu0 cpu1 warm
	cpu0="$(srvticks)"
	if ! line="$("$bin" "${args[@]}" 2>>"$work/stderr.log")"; then
		echo "bench-ensemble: $bin ${args[*]} failed:" >&2
		tail -30 "$work/stderr.log" >&2
		exit 1
	fi
	cpu1="$(srvticks)"
	case "$r" in
	mutex | gozk | curator-mutex) warm=$((W * MUTEX_WARMUP)) ;;
	rwlock | curator-rwlock) warm=$(((R + WR) * 5)) ;;
	semaphore | curator-semaphore) warm=$((SW * 50)) ;;
	run | curator-run) warm=$RUN_WARMUP ;;
	esac
	local n
	n="$(echo "$line" | tr ' ' '\n' | sed -n 's/^\(ops\|terms\)=//p' | head -1)"
	line="$line srv_cpu_us_per_op=$(awk -v d="$((cpu1 - cpu0))" -v hz="$(getconf CLK_TCK)" -v n="$((n + warm))" 'BEGIN {printf "%.0f", d * 1e6 / hz / n}')"
	echo "$line" | sed "s/^recipe=$r /recipe=$name /"
}

# srvticks: the CPU time (clock ticks, user and system) the servers have used.
srvticks() {
	local p s=0 f
	for p in $zkpids; do
		read -r -a f <"/proc/$p/stat"
		s=$((s + f[13] + f[14]))
	done
	echo "$s"
}

groups=("mutex gozk curator-mutex" "rwlock curator-rwlock" "semaphore curator-semaphore" "run curator-run")
if [ -n "$BEFORE" ]; then
	groups[0]="${groups[0]} mutex@before"
	groups[3]="${groups[3]} run@before"
fi
if [ -n "${ONLY:-}" ]; then
	kept=()
	for g in "${groups[@]}"; do
		first="${g%% *}"
		[ "$first" = semaphore ] || [ "$first" = rwlock ] || [ "$first" = mutex ] || first=run
		case " $ONLY " in *" $first "*) kept+=("$g") ;; esac
	done
	groups=("${kept[@]}")
fi

load_before="$(load)"
echo "# $(bench_zk_describe) at $zk; after=$after${BEFORE:+ before=$rev}; rounds=$ROUNDS budget=$BUDGET; $(nproc) cores; load before: $load_before"
echo "# participants: mutex $W workers; rwlock $R readers + $WR writers; semaphore $SW workers, $SL leases; election $P participants; each its own session"

# The servers' JIT compiles their hot paths during the first thousands of
# requests, and javac runs once: warm up with every recipe, unmeasured.
for g in "${groups[@]}"; do
	for r in $g; do
		bench "$r" >/dev/null
	done
done

if [ "$LOAD" != 0 ]; then
	n="$LOAD"
	[ "$LOAD" = 1 ] && n="$(nproc)"
	bench_load_start "$n"
	echo "# load: $n CPU-bound busy loops beside the measurements"
fi

results="$work/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
	for g in "${groups[@]}"; do
		read -r -a rs <<<"$g"
		n="${#rs[@]}"
		for k in $(seq 0 $((n - 1))); do
			r="${rs[$(((k + round) % n))]}"
			line="$(bench "$r")"
			echo "$line"
			echo "$line round=$round" >>"$results"
		done
	done
	echo "round $round load: $(load)" | tee -a "$loads"
done
bench_load_stop
load_after="$(load)"

sel() { grep "^recipe=$1 " "$results" || true; }
med() { sel "$1" | field "$2" | median; }
sum() { sel "$1" | field "$2" | awk '{s+=$1} END {print s+0}'; }
# byround A B KEY: A's KEY / B's KEY, per round.
byround() {
	local out="" a b round
	for round in $(seq "$ROUNDS"); do
		a="$(sel "$1" | grep " round=$round\$" | field "$3")"
		b="$(sel "$2" | grep " round=$round\$" | field "$3")"
		out="$out${out:+, }$(ratio "$a" "$b")"
	done
	echo "$out"
}

if [ "$SERVERS" -gt 1 ]; then
	tg=1.1 tc=1.3 where="ensemble"
else
	tg=1.2 tc=1.5 where="one server"
fi
echo
echo "Medians of $ROUNDS rounds on $(bench_zk_describe), each measurement at most $BUDGET; each worker its own session."
echo "Load before: $load_before; by round: $(cut -d: -f2- "$loads" | tr '\n' ';' | sed 's/;$//'); after: $load_after ($(nproc) cores${LOAD:+, LOAD=$LOAD})."
echo
echo "| run | Go | go-zookeeper | Curator | Go ÷ go-zookeeper (by round) | Go ÷ Curator (by round) | violations Go / gozk / Curator |"
echo "|---|---|---|---|---|---|---|"
printf '| mutex, %s workers, ops/s | %.0f | %.0f | %.0f | %s× (%s) | %s× (%s) | %s / %s / %s |\n' "$W" \
	"$(med mutex ops_per_s)" "$(med gozk ops_per_s)" "$(med curator-mutex ops_per_s)" \
	"$(ratio "$(med mutex ops_per_s)" "$(med gozk ops_per_s)")" "$(byround mutex gozk ops_per_s)" \
	"$(ratio "$(med mutex ops_per_s)" "$(med curator-mutex ops_per_s)")" "$(byround mutex curator-mutex ops_per_s)" \
	"$(sum mutex violations)" "$(sum gozk violations)" "$(sum curator-mutex violations)"
for q in 50 99; do
	printf '| mutex handoff p%s, ms | %.2f | %.2f | %.2f | %s× | %s× (%s) | |\n' "$q" \
		"$(med mutex handoff_p${q}_ms)" "$(med gozk handoff_p${q}_ms)" "$(med curator-mutex handoff_p${q}_ms)" \
		"$(ratio "$(med mutex handoff_p${q}_ms)" "$(med gozk handoff_p${q}_ms)")" \
		"$(ratio "$(med mutex handoff_p${q}_ms)" "$(med curator-mutex handoff_p${q}_ms)")" "$(byround mutex curator-mutex handoff_p${q}_ms)"
done
if [ -n "$(sel rwlock)" ]; then # not with ONLY=... leaving it out
	printf '| rwlock, %s readers + %s writers, ops/s | %.0f | – | %.0f | – | %s× (%s) | %s / – / %s |\n' "$R" "$WR" \
		"$(med rwlock ops_per_s)" "$(med curator-rwlock ops_per_s)" \
		"$(ratio "$(med rwlock ops_per_s)" "$(med curator-rwlock ops_per_s)")" "$(byround rwlock curator-rwlock ops_per_s)" \
		"$(sum rwlock violations)" "$(sum curator-rwlock violations)"
fi
if [ -n "$(sel semaphore)" ]; then
	printf '| semaphore, %s workers, %s leases, ops/s | %.0f | – | %.0f | – | %s× (%s) | %s / – / %s |\n' "$SW" "$SL" \
		"$(med semaphore ops_per_s)" "$(med curator-semaphore ops_per_s)" \
		"$(ratio "$(med semaphore ops_per_s)" "$(med curator-semaphore ops_per_s)")" "$(byround semaphore curator-semaphore ops_per_s)" \
		"$(sum semaphore violations)" "$(sum curator-semaphore violations)"
fi
printf '| election Run, %s participants, terms/s | %.0f | – | %.0f | – | %s× (%s) | %s / – / %s |\n' "$P" \
	"$(med run terms_per_s)" "$(med curator-run terms_per_s)" \
	"$(ratio "$(med run terms_per_s)" "$(med curator-run terms_per_s)")" "$(byround run curator-run terms_per_s)" \
	"$(sum run violations)" "$(sum curator-run violations)"
printf '| mutex, servers'"'"' CPU per cycle, µs | %.0f | %.0f | %.0f | %s× | %s× | |\n' \
	"$(med mutex srv_cpu_us_per_op)" "$(med gozk srv_cpu_us_per_op)" "$(med curator-mutex srv_cpu_us_per_op)" \
	"$(ratio "$(med mutex srv_cpu_us_per_op)" "$(med gozk srv_cpu_us_per_op)")" "$(ratio "$(med mutex srv_cpu_us_per_op)" "$(med curator-mutex srv_cpu_us_per_op)")"
printf '| election Run, servers'"'"' CPU per term, µs | %.0f | – | %.0f | – | %s× | |\n' \
	"$(med run srv_cpu_us_per_op)" "$(med curator-run srv_cpu_us_per_op)" "$(ratio "$(med run srv_cpu_us_per_op)" "$(med curator-run srv_cpu_us_per_op)")"
printf '| election Run, term end → next term p50 / p99, ms | %.2f / %.2f | – | %.2f / %.2f | – | %s× | |\n' \
	"$(med run failover_p50_ms)" "$(med run failover_p99_ms)" "$(med curator-run failover_p50_ms)" "$(med curator-run failover_p99_ms)" \
	"$(ratio "$(med run failover_p50_ms)" "$(med curator-run failover_p50_ms)")"
echo
echo "Targets ($where): $(verdict "$(rawratio "$(med mutex ops_per_s)" "$(med gozk ops_per_s)")" ">=" "$tg" "mutex ≥${tg}× go-zookeeper"); $(verdict "$(rawratio "$(med mutex ops_per_s)" "$(med curator-mutex ops_per_s)")" ">=" "$tc" "mutex ≥${tc}× Curator");$([ "$SERVERS" -eq 1 ] && echo " $(verdict "$(rawratio "$(med mutex handoff_p50_ms)" "$(med curator-mutex handoff_p50_ms)")" "<=" 0.7 "handoff p50 ≤0.7× Curator");") $(verdict "$(rawratio "$(med run terms_per_s)" "$(med curator-run terms_per_s)")" ">=" 2 "Run ≥2× Curator")"
if [ -n "$BEFORE" ]; then
	echo
	echo "| before ($rev) → after ($after) | before | after | after ÷ before (by round) |"
	echo "|---|---|---|---|"
	printf '| mutex, %s workers, ops/s | %.0f | %.0f | %s× (%s) |\n' "$W" "$(med mutex@before ops_per_s)" "$(med mutex ops_per_s)" \
		"$(ratio "$(med mutex ops_per_s)" "$(med mutex@before ops_per_s)")" "$(byround mutex mutex@before ops_per_s)"
	printf '| mutex handoff p50 / p99, ms | %.2f / %.2f | %.2f / %.2f | %s× |\n' \
		"$(med mutex@before handoff_p50_ms)" "$(med mutex@before handoff_p99_ms)" "$(med mutex handoff_p50_ms)" "$(med mutex handoff_p99_ms)" \
		"$(ratio "$(med mutex handoff_p50_ms)" "$(med mutex@before handoff_p50_ms)")"
	printf '| mutex, servers'"'"' CPU per cycle, µs | %.0f | %.0f | %s× |\n' "$(med mutex@before srv_cpu_us_per_op)" "$(med mutex srv_cpu_us_per_op)" \
		"$(ratio "$(med mutex srv_cpu_us_per_op)" "$(med mutex@before srv_cpu_us_per_op)")"
	printf '| mutex ÷ go-zookeeper | %s× (%s) | %s× | |\n' \
		"$(ratio "$(med mutex@before ops_per_s)" "$(med gozk ops_per_s)")" "$(byround mutex@before gozk ops_per_s)" \
		"$(ratio "$(med mutex ops_per_s)" "$(med gozk ops_per_s)")"
	printf '| Run, %s participants, terms/s | %.0f | %.0f | %s× (%s) |\n' "$P" "$(med run@before terms_per_s)" "$(med run terms_per_s)" \
		"$(ratio "$(med run terms_per_s)" "$(med run@before terms_per_s)")" "$(byround run run@before terms_per_s)"
	printf '| Run, servers'"'"' CPU per term, µs | %.0f | %.0f | %s× |\n' "$(med run@before srv_cpu_us_per_op)" "$(med run srv_cpu_us_per_op)" \
		"$(ratio "$(med run srv_cpu_us_per_op)" "$(med run@before srv_cpu_us_per_op)")"
	printf '| Run ÷ Curator | %s× (%s) | %s× | |\n' \
		"$(ratio "$(med run@before terms_per_s)" "$(med curator-run terms_per_s)")" "$(byround run@before curator-run terms_per_s)" \
		"$(ratio "$(med run terms_per_s)" "$(med curator-run terms_per_s)")"
fi
if [ "$COUNT" != 0 ]; then
	echo
	echo "Requests per cycle (per term for run), by opcode, counted on the clients' side of the connections (zkbench -count; Curator's include its warm-up):"
	for r in mutex gozk curator-mutex run curator-run; do
		COUNTING=1 bench "$r" | tr ' ' '\n' | grep -E '^(recipe|req_per_op)=' | tr '\n' ' '
		echo
	done
fi
if [ -s "$work/stderr.log" ]; then
	echo
	echo "zkbench's warnings (last 5 of $(wc -l <"$work/stderr.log")):"
	tail -5 "$work/stderr.log"
fi
