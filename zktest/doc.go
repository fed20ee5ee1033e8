// Package zktest gives your tests a real ZooKeeper: a standalone server or
// an ensemble on 127.0.0.1, started by one call, torn down with the test,
// and faults to inject while your code runs against it (servers stopped,
// killed or frozen; with package faultlink, one client's connection cut,
// blackholed, or its session expired). It plays the part Curator's
// curator-test (TestingServer, TestingCluster, KillSession) plays for Java.
//
//	func TestMyLock(t *testing.T) {
//		zk := zktest.ForTest(t) // a standalone server; zktest.WithServers(3) for an ensemble
//		link := faultlink.New() // this client's network path, under the test's control
//		defer link.Close()
//		c, err := client.New(client.WithServers(zk.Addrs()...), client.WithDialer(link.Dial))
//		...
//		link.Cut()                    // the client loses its connection, not its session
//		link.Restore()
//		err = link.ExpireSession(ctx) // the server ends the client's session now
//		err = zk.StopServer(ctx, 0)   // the server goes down, keeping its data
//		err = zk.StartServer(ctx, 0)  // and comes back on the same port
//	}
//
// ForTest starts the servers, fails the test (never skips it) when none can
// run, and closes them in the test's cleanup. Start does the same for code
// that is not a test and returns a Cluster for you to Close; RunMain serves
// one cluster to a whole package from TestMain. Every Start returns once
// each server serves requests (an ensemble: once it has a quorum and every
// member answers). Addr, Addrs and ConnectString stay the same for the
// cluster's whole life, across restarts of its servers.
//
// # What to install
//
// One of these, on the machine that runs the tests:
//
//   - Docker (any engine testcontainers-go can reach) and a ZooKeeper image
//     pulled beforehand: zktest never pulls. The default is the official
//     image, so `docker pull zookeeper:3.9` is enough; WithImage or
//     ZK_IMAGE names another that accepts the official image's
//     environment variables.
//   - Java (a JRE; a JDK's keytool for WithTLS) and ZooKeeper's jars. On
//     Debian and Ubuntu, `apt-get install zookeeper` puts them in
//     /usr/share/java, where zktest finds them. Elsewhere unpack a
//     ZooKeeper release and point ZK_CLASSPATH at its jars, e.g.
//     ZK_CLASSPATH='/opt/apache-zookeeper-3.9.3-bin/lib/*'.
//
// # Backends
//
// BackendDocker runs one container per server through testcontainers-go,
// each with its client port published on a fixed port of 127.0.0.1; the
// members of an ensemble share a private docker network. Unless set already,
// Start sets TESTCONTAINERS_RYUK_DISABLED=true (Close removes every
// container and network itself; each carries the label LabelCluster) and
// TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 in the process environment.
//
// BackendLocal runs one java process per server (java from PATH), each in
// its own process group and temporary directory holding its zoo.cfg, data
// and log.
//
// WithBackend chooses, else ZK_BACKEND: "docker" or "local" force that
// backend, and a forced backend that cannot run is an error wrapping
// ErrNoBackend, never a fallback to the other; "" or "auto" (the default)
// takes docker when an engine answers and the image is there, and local
// otherwise. Each Start logs one Info line naming what it started (to
// WithLogger's logger, else slog.Default()), e.g.
//
//	INFO zktest: backend=local servers=1 addrs=127.0.0.1:40121
//
// When the automatic choice finds docker unavailable and falls back to the
// local backend, it says so (with the reason) in one more Info line, once
// per process: the first such Start logs it, the later ones do not.
//
// # Environment
//
// The environment decides what the options leave open, so one test suite
// runs anywhere:
//
//	ZK_BACKEND       "docker", "local", or ""/"auto" (default auto)
//	ZK_IMAGE         docker image (default zookeeper:3.9)
//	ZK_CLASSPATH     java class path of the local backend, instead of Debian's jars
//	ZK_VERSION       ZooKeeper version of the local backend (see Versions)
//	ZK_VERSIONS_DIR  where the jars of other versions are (default /opt/zkrecipes)
//	ZKTEST_VERBOSE   "1": testcontainers-go prints its own messages to stderr;
//	                 otherwise they go to zktest's logger at debug level
//
// # Faults
//
// On the servers, through Cluster: StopServer stops a server gracefully and
// KillServer kills it outright; both keep its data, its port refuses
// connections meanwhile, and StartServer brings it back on the same port and
// waits until it serves again (in an ensemble: until it rejoined).
// PauseServer freezes a server (SIGSTOP, docker pause): connections stay
// open but nothing is answered, so clients see timeouts rather than
// disconnects, until ResumeServer. Leader, Mode, WaitServing and
// ServerVersion ask servers what they are doing.
//
// On one client, through a faultlink.Link given to the client as its dialer
// (client.WithDialer, or go-zookeeper's zk.WithDialer): Cut (connection loss
// at once; the session lives on), Blackhole (a partition: silence until the
// client's own timeouts), DropReplyTo (the server does the work, the client
// never hears back), CutDuring and HoldRequest (a request cut midway, or
// held back), and ExpireSession (the server ends the client's session now,
// deleting its ephemeral nodes, as a session timeout would). Faults on one
// link touch no other client.
//
// # Versions
//
// The docker backend runs whatever its image holds. The local backend runs
// DefaultVersion, Debian bookworm's 3.8.0 (or what ZK_CLASSPATH holds), unless
// WithVersion or ZK_VERSION asks for another, such as Version39 or Version34:
// its jars must be in VersionsDir/zookeeper-VERSION/lib (zookeeper.jar and
// the rest, as this repository's scripts/fetch-zk-jars.sh lays them out).
// Asking for a version other than DefaultVersion forces the local backend.
// Cluster.ServerVersion asks a server which version it runs.
//
// # TLS
//
// WithTLS gives every server a secure client port besides the plain one,
// served by ZooKeeper's Netty connection factory: Start makes a certificate
// authority and a client certificate (in Go) and the server's PKCS12
// keystore and truststore (with the JDK's keytool, from PATH, on either
// backend), and waits until each secure port completes a handshake.
// SecureAddr, SecureAddrs and SecureConnectString are its addresses, stable
// across restarts; TLS().ClientConfig() is what a client needs. The server
// requires the client certificate.
//
// # Server settings
//
// The servers use a 200ms tickTime (WithTickTime), so they accept session
// timeouts from 400ms to the maximum session timeout, 60s
// (WithMaxSessionTimeout), and reap empty container nodes every 500ms
// (WithContainerCheckInterval): a test of session loss or of container
// cleanup need not wait long.
package zktest
