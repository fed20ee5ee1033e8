# Sourced by the bench scripts: bench_zk_start NAME builds cmd/zkbench into
# $work/zkbench and starts one local ZooKeeper 3.8 (Debian's package,
# configured as zkharness's local backend: tickTime 200, SerialGC, 256 MB) on
# a free loopback port; it sets work (a temp directory) and zk (host:port),
# and stops the server and removes $work when the script exits. It also
# defines field and median for the scripts' tables.

bench_zk_start() {
	local name="$1"
	work="$(mktemp -d "/tmp/zkbench-$name.XXXXXX")"
	zkpid=""
	bench_zk_cleanup() {
		if [ -n "$zkpid" ]; then
			kill "$zkpid" 2>/dev/null || true
			wait "$zkpid" 2>/dev/null || true
		fi
		rm -rf "$work"
	}
	trap bench_zk_cleanup EXIT

	go build -o "$work/zkbench" ./cmd/zkbench

	# A free loopback port: nothing answers a connect on it.
	port=""
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 20000))
		if ! { (exec 3<>"/dev/tcp/127.0.0.1/$p"); } 2>/dev/null; then
			port=$p
			break
		fi
	done
	[ -n "$port" ] || { echo "bench-$name: no free port" >&2; exit 1; }

	mkdir -p "$work/zk/data"
	cat >"$work/zk/zoo.cfg" <<EOF
tickTime=200
initLimit=10
syncLimit=5
dataDir=$work/zk/data
clientPort=$port
clientPortAddress=127.0.0.1
admin.enableServer=false
maxClientCnxns=0
4lw.commands.whitelist=*
minSessionTimeout=400
maxSessionTimeout=60000
EOF
	cat >"$work/zk/log4j.properties" <<EOF
log4j.rootLogger=INFO, FILE
log4j.appender.FILE=org.apache.log4j.FileAppender
log4j.appender.FILE.File=$work/zk/zookeeper.log
log4j.appender.FILE.layout=org.apache.log4j.PatternLayout
log4j.appender.FILE.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{1}: %m%n
EOF
	cp=""
	for j in zookeeper.jar zookeeper-jute.jar slf4j-api.jar slf4j-log4j12.jar log4j-1.2.jar netty-all.jar; do
		[ -f "/usr/share/java/$j" ] && cp="$cp${cp:+:}/usr/share/java/$j"
	done
	java -Xmx256m -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true \
		-Dlog4j.configuration="file:$work/zk/log4j.properties" -Dzookeeper.admin.enableServer=false \
		-cp "$cp" org.apache.zookeeper.server.quorum.QuorumPeerMain "$work/zk/zoo.cfg" \
		>"$work/zk/console.log" 2>&1 &
	zkpid=$!

	ok=""
	for _ in $(seq 100); do
		if { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; then
			printf ruok >&3
			read -r -t 2 ok <&3 || true
			exec 3<&- 3>&-
			[ "$ok" = imok ] && break
		fi
		sleep 0.2
	done
	if [ "$ok" != imok ]; then
		echo "bench-$name: ZooKeeper did not start on 127.0.0.1:$port" >&2
		tail -20 "$work/zk/console.log" >&2
		exit 1
	fi
	zk="127.0.0.1:$port"
}

# field KEY: the value of KEY=... on stdin's result lines, one a line.
field() { tr ' ' '\n' | sed -n "s/^$1=//p"; }
# median: the median of the numbers on stdin, one a line ("nan" for none).
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
