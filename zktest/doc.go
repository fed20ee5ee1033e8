// Package zktest runs real ZooKeeper servers on loopback for integration
// tests, runnable examples and benchmarks.
//
// Start launches a standalone server or an ensemble and returns once every
// server serves requests; ForTest does the same for a test and closes the
// cluster in the test's cleanup (it fails the test, never skips it, when no
// server can run). Clients connect to Addr(i), Addrs or ConnectString, which
// stay the same for the cluster's whole life, also across restarts.
//
// # Backends
//
// BackendDocker runs one container per server with testcontainers-go. Each
// container's client port is published on a fixed port of 127.0.0.1; the
// members of an ensemble share a private docker network in which server N is
// zkN. The image (WithImage, else ZK_IMAGE, else the official
// "zookeeper:3.9") must already exist locally: nothing is pulled. Where no
// registry is reachable, scripts/build-zk-image.sh builds
// zkrecipes/zookeeper:3.8-debian from Debian's packages; it accepts the same
// environment variables as the official image. Unless already set, the docker
// backend sets TESTCONTAINERS_RYUK_DISABLED=true (the reaper image cannot be
// pulled either; Close removes everything instead) and
// TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 in the process environment.
//
// BackendLocal runs one java process per server (java from PATH), with the
// jars of Debian's zookeeper package in /usr/share/java, each in its own
// process group and temporary directory holding zoo.cfg, the data and the
// server's log.
//
// # Versions
//
// The local backend runs DefaultVersion, Debian bookworm's 3.8.0, unless
// WithVersion or ZK_VERSION names another: Version39 (3.9.3) or Version34
// (3.4.13, a server without addWatch, create2, containers or TTL nodes),
// whose jars scripts/install-deps.sh fetches from Debian's archive
// (scripts/fetch-zk-jars.sh) into VersionsDir. Another version forces the
// local backend; the docker backend's version is its image's. So a whole
// package's tests run on 3.9 with
//
//	ZK_BACKEND=local ZK_VERSION=3.9.3 go test ./client/internal/wire/
//
// and Cluster.ServerVersion asks a server which version it runs.
//
// Without WithBackend, ZK_BACKEND chooses: "docker" or "local" force that
// backend (an unavailable forced backend is an error wrapping ErrNoBackend,
// never a silent fallback); empty or "auto" takes docker when an engine
// answers and the image exists locally, and local otherwise. Every Start logs
// one Info line naming the backend, e.g.
//
//	zktest: backend=docker image=zkrecipes/zookeeper:3.8-debian servers=1
//
// # Environment
//
//	ZK_BACKEND    "docker", "local", or ""/"auto" (default auto)
//	ZK_IMAGE      docker image (default zookeeper:3.9)
//	ZK_CLASSPATH  java class path for the local backend, replacing Debian's jars
//	ZK_VERSION    ZooKeeper version of the local backend (default 3.8.0, Debian's)
//	ZK_VERSIONS_DIR  where the other versions' jars are (default /opt/zkrecipes)
//	ZK_HARNESS_VERBOSE  "1": testcontainers-go's own messages (its banner with
//	              the Docker host, API version, session id...) go to stderr;
//	              otherwise to the harness logger at debug level
//
// # TLS
//
// WithTLS gives every server a secure client port besides the plain one,
// served by ZooKeeper's Netty connection factory (NettyServerCnxnFactory):
// Start makes a certificate authority and a client certificate (in Go) and
// the server's PKCS12 keystore and truststore (with the JDK's keytool, from
// PATH, on either backend), writes the ssl.* settings into zoo.cfg (the
// docker backend copies the stores into each container and passes the
// settings through ZOO_CFG_EXTRA), and waits until each secure port
// completes a handshake. SecureAddr, SecureAddrs and SecureConnectString
// are its addresses, stable across restarts; TLS().ClientConfig() is what
// a client needs. The server requires the client certificate.
//
// # Faults
//
// StopServer stops a server gracefully and KillServer kills it outright; both
// keep its data, its port refuses connections meanwhile, and StartServer
// brings it back on the same port and waits until it serves again (in an
// ensemble: until it rejoined). PauseServer freezes a server (docker pause,
// SIGSTOP): connections stay open but nothing is answered, so clients see
// timeouts rather than disconnects, until ResumeServer. WaitServing, Mode and
// Leader ask servers with the four-letter word "srvr". Faults on one client's
// own network path (cut, blackhole, a lost reply) are package faultlink's.
//
// The servers use a 200ms tickTime by default, so sessions from 400ms to the
// maximum session timeout (60s) are accepted, and reap empty container znodes
// every 500ms.
package zktest
