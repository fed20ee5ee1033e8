#!/bin/bash
# Entrypoint of the locally built ZooKeeper image (see scripts/build-zk-image.sh).
#
# It accepts the environment variables of the official "zookeeper" image, so the
# same harness configuration works against either image:
#
#   ZOO_MY_ID                   server id written to $ZOO_DATA_DIR/myid (default 1)
#   ZOO_SERVERS                 space-separated "server.N=host:peer:election;client" entries
#   ZOO_TICK_TIME               tickTime in ms (default 2000)
#   ZOO_INIT_LIMIT              initLimit in ticks (default 5)
#   ZOO_SYNC_LIMIT              syncLimit in ticks (default 2)
#   ZOO_MAX_CLIENT_CNXNS        maxClientCnxns (default 60)
#   ZOO_STANDALONE_ENABLED      standaloneEnabled (default true)
#   ZOO_ADMINSERVER_ENABLED     admin.enableServer (default true)
#   ZOO_4LW_COMMANDS_WHITELIST  4lw.commands.whitelist (default srvr)
#   ZOO_CFG_EXTRA               space-separated extra "key=value" lines for zoo.cfg
#   ZOO_CONF_DIR                directory of zoo.cfg (default /conf)
#   ZOO_DATA_DIR                data directory (default /data)
#   ZOO_DATA_LOG_DIR            transaction log directory (default /datalog)
#   JVMFLAGS                    extra flags for the java command line
#
# Like the official image, zoo.cfg and myid are only written when they do not
# exist yet, so a stopped and restarted container keeps its configuration and
# its data. The server runs in the foreground and logs to stdout.
set -euo pipefail

: "${ZOO_CONF_DIR:=/conf}"
: "${ZOO_DATA_DIR:=/data}"
: "${ZOO_DATA_LOG_DIR:=/datalog}"
: "${ZOO_TICK_TIME:=2000}"
: "${ZOO_INIT_LIMIT:=5}"
: "${ZOO_SYNC_LIMIT:=2}"
: "${ZOO_MAX_CLIENT_CNXNS:=60}"
: "${ZOO_STANDALONE_ENABLED:=true}"
: "${ZOO_ADMINSERVER_ENABLED:=true}"
: "${ZOO_4LW_COMMANDS_WHITELIST:=srvr}"
: "${ZOO_MY_ID:=1}"
: "${ZOO_SERVERS:=}"
: "${ZOO_CFG_EXTRA:=}"
: "${JVMFLAGS:=}"

# Any explicit command other than the server itself runs as given (for
# debugging: docker run --rm -it IMAGE bash).
if [ "$#" -gt 0 ] && [ "$1" != "zkServer.sh" ]; then
	exec "$@"
fi

mkdir -p "$ZOO_CONF_DIR" "$ZOO_DATA_DIR" "$ZOO_DATA_LOG_DIR"

cfg="$ZOO_CONF_DIR/zoo.cfg"
if [ ! -f "$cfg" ]; then
	{
		echo "dataDir=$ZOO_DATA_DIR"
		echo "dataLogDir=$ZOO_DATA_LOG_DIR"
		echo "tickTime=$ZOO_TICK_TIME"
		echo "initLimit=$ZOO_INIT_LIMIT"
		echo "syncLimit=$ZOO_SYNC_LIMIT"
		echo "maxClientCnxns=$ZOO_MAX_CLIENT_CNXNS"
		echo "standaloneEnabled=$ZOO_STANDALONE_ENABLED"
		echo "admin.enableServer=$ZOO_ADMINSERVER_ENABLED"
		echo "4lw.commands.whitelist=$ZOO_4LW_COMMANDS_WHITELIST"
		if [ -z "$ZOO_SERVERS" ]; then
			echo "server.1=localhost:2888:3888;2181"
		else
			for entry in $ZOO_SERVERS; do
				echo "$entry"
			done
		fi
		for entry in $ZOO_CFG_EXTRA; do
			echo "$entry"
		done
	} >"$cfg.tmp"
	mv "$cfg.tmp" "$cfg"
fi

if [ ! -f "$ZOO_DATA_DIR/myid" ]; then
	echo "$ZOO_MY_ID" >"$ZOO_DATA_DIR/myid"
fi

# A transaction log file shorter than its 16-byte header holds no
# transaction: it is what a SIGKILL right after ZooKeeper created a new log
# leaves. ZooKeeper 3.8 will not start with one (EOFException reading the
# header, as in ZOOKEEPER-1621), so a killed server could never come back.
# Such files are removed, as an operator would.
for logdir in "$ZOO_DATA_LOG_DIR/version-2" "$ZOO_DATA_DIR/version-2"; do
	for f in "$logdir"/log.*; do
		if [ -f "$f" ] && [ "$(stat -c %s "$f")" -lt 16 ]; then
			echo "docker-entrypoint: removing $f: a transaction log cut short before its header" >&2
			rm -f "$f"
		fi
	done
done

# Debian's jars. zookeeper.jar's manifest names most of its dependencies; the
# logging binding and log4j itself are added here so the log reaches stdout,
# and netty-codec, which the Netty connection factory of a secure client port
# needs (Debian's netty-all.jar is an empty aggregate).
cp="/etc/zookeeper/conf"
for jar in zookeeper zookeeper-jute slf4j-api slf4j-log4j12 log4j-1.2 netty-all netty-codec; do
	if [ -f "/usr/share/java/$jar.jar" ]; then
		cp="$cp:/usr/share/java/$jar.jar"
	fi
done

# JVMFLAGS is deliberately split on spaces, as the official image does.
# shellcheck disable=SC2086
exec java \
	-Dzookeeper.log.dir=/tmp \
	-Dzookeeper.root.logger=INFO,CONSOLE \
	-cp "$cp" \
	$JVMFLAGS \
	org.apache.zookeeper.server.quorum.QuorumPeerMain "$cfg"
