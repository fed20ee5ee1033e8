# Sourced by the bench scripts: bench_zk_start NAME [SERVERS] builds
# cmd/zkbench into $work/zkbench and starts SERVERS (default 1) local
# ZooKeeper 3.8 servers (Debian's package, configured as zktest's local
# backend: tickTime 200, SerialGC, 256 MB), one standalone server or an
# ensemble of local java processes, on free loopback ports; it sets work (a
# temp directory) and zk (host:port[,host:port...]), and stops the servers
# (and any load from bench_load_start) and removes $work when the script
# exits. It also defines field, median, ratio, rawratio and verdict for the
# scripts' tables, bench_zk_describe for their headers, and bench_load_start
# and bench_load_stop: a CPU-bound load beside a benchmark.

bench_zk_start() {
	local name="$1" servers="${2:-1}"
	work="$(mktemp -d "/tmp/zkbench-$name.XXXXXX")"
	zkpids=""
	bench_zk_cleanup() {
		bench_load_stop
		local p
		for p in $zkpids; do
			kill "$p" 2>/dev/null || true
		done
		for p in $zkpids; do
			wait "$p" 2>/dev/null || true
		done
		rm -rf "$work"
	}
	trap bench_zk_cleanup EXIT

	go build -o "$work/zkbench" ./cmd/zkbench

	# Free loopback ports, on which nothing answers a connect: a client port
	# per server and, in an ensemble, a quorum and an election port each.
	local nports="$servers" ports=() p
	[ "$servers" -gt 1 ] && nports=$((3 * servers))
	for _ in $(seq 500); do
		[ "${#ports[@]}" -ge "$nports" ] && break
		p=$((20000 + RANDOM % 20000))
		if [[ " ${ports[*]} " != *" $p "* ]] && ! { (exec 3<>"/dev/tcp/127.0.0.1/$p"); } 2>/dev/null; then
			ports+=("$p")
		fi
	done
	[ "${#ports[@]}" -ge "$nports" ] || { echo "bench-$name: no free ports" >&2; exit 1; }

	local peers="" i
	if [ "$servers" -gt 1 ]; then
		for i in $(seq "$servers"); do
			peers+="server.$i=127.0.0.1:${ports[$((servers + 2 * i - 2))]}:${ports[$((servers + 2 * i - 1))]}"$'\n'
		done
	fi
	local cp="" j
	for j in zookeeper.jar zookeeper-jute.jar slf4j-api.jar slf4j-log4j12.jar log4j-1.2.jar netty-all.jar; do
		[ -f "/usr/share/java/$j" ] && cp="$cp${cp:+:}/usr/share/java/$j"
	done
	zk=""
	local dir port
	for i in $(seq "$servers"); do
		dir="$work/zk$i"
		port="${ports[$((i - 1))]}"
		mkdir -p "$dir/data"
		{
			echo "tickTime=200"
			echo "initLimit=20"
			echo "syncLimit=10"
			echo "dataDir=$dir/data"
			echo "clientPort=$port"
			echo "clientPortAddress=127.0.0.1"
			echo "admin.enableServer=false"
			echo "maxClientCnxns=0"
			echo "4lw.commands.whitelist=*"
			echo "minSessionTimeout=400"
			echo "maxSessionTimeout=60000"
			printf '%s' "$peers"
		} >"$dir/zoo.cfg"
		[ "$servers" -gt 1 ] && echo "$i" >"$dir/data/myid"
		{
			echo "log4j.rootLogger=INFO, FILE"
			echo "log4j.appender.FILE=org.apache.log4j.FileAppender"
			echo "log4j.appender.FILE.File=$dir/zookeeper.log"
			echo "log4j.appender.FILE.layout=org.apache.log4j.PatternLayout"
			echo "log4j.appender.FILE.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{1}: %m%n"
		} >"$dir/log4j.properties"
		java -Xmx256m -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true \
			-Dlog4j.configuration="file:$dir/log4j.properties" -Dzookeeper.admin.enableServer=false \
			-cp "$cp" org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg" \
			>"$dir/console.log" 2>&1 &
		zkpids="$zkpids $!"
		zk="$zk${zk:+,}127.0.0.1:$port"
	done

	# Every server must serve: standalone, or as leader or follower.
	local mode
	for i in $(seq "$servers"); do
		port="${ports[$((i - 1))]}"
		mode=""
		for _ in $(seq 150); do
			if { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; then
				printf srvr >&3
				mode="$(timeout 2 cat <&3 | sed -n 's/^Mode: //p' || true)"
				exec 3<&- 3>&-
				case "$mode" in standalone | leader | follower) break ;; esac
			fi
			sleep 0.2
		done
		case "$mode" in
		standalone | leader | follower) ;;
		*)
			echo "bench-$name: ZooKeeper server $i did not serve on 127.0.0.1:$port" >&2
			tail -20 "$work"/zk*/console.log >&2
			exit 1
			;;
		esac
	done
}

# bench_zk_describe: what bench_zk_start started, for the scripts' headers.
bench_zk_describe() {
	local n
	n="$(tr ',' '\n' <<<"$zk" | wc -l)"
	if [ "$n" -eq 1 ]; then
		echo "one local ZooKeeper 3.8 server"
	else
		echo "a $n-server local ZooKeeper 3.8 ensemble"
	fi
}

# bench_load_start N: N CPU-bound busy loops (a process each) beside the
# benchmark, until bench_load_stop or the script's exit.
loadpids=""
bench_load_start() {
	local i
	for i in $(seq "$1"); do
		bash -c 'while :; do :; done' &
		loadpids="$loadpids $!"
	done
}
bench_load_stop() {
	local p
	for p in $loadpids; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	loadpids=""
}

# field KEY: the value of KEY=... on stdin's result lines, one a line.
field() { tr ' ' '\n' | sed -n "s/^$1=//p"; }
# median: the median of the numbers on stdin, one a line ("nan" for none).
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# ratio A B: A / B to two decimals ("nan" unless B > 0).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "nan"}'; }
# rawratio A B: A / B unrounded, for the verdicts (0.502 must not pass as 0.50).
rawratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.6f", a/b; else print "nan"}'; }
# verdict VALUE OP BOUND TEXT: TEXT, then " met" when VALUE OP (<= or >=)
# BOUND holds, else " MISSED".
verdict() { # value op bound text
	awk -v v="$1" -v b="$3" -v op="$2" -v t="$4" 'BEGIN {ok = (op == "<=") ? (v <= b) : (v >= b); print t (ok ? " met" : " MISSED")}'
}
