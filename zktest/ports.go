package zktest

import (
	"fmt"
	"math/rand/v2"
	"net"
)

// Ports are drawn from [portLow, portHigh), below Linux's default ephemeral
// range (32768-60999). A port the kernel hands out for outgoing connections
// could be taken by any client while its server is stopped, and StartServer
// would then fail with "address already in use"; a port from this range is
// only ever taken by someone who asks for it by number.
const (
	portLow   = 20000
	portHigh  = 32000
	portTries = 200
)

// freePorts returns n distinct TCP ports that were free on 127.0.0.1 a moment
// ago. All listeners are held until every port is chosen, so the ports differ.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	lns := make([]net.Listener, 0, n)
	defer func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}()
	for tries := 0; len(ports) < n; tries++ {
		if tries >= portTries*n {
			return nil, fmt.Errorf("zktest: no free port in [%d, %d) after %d tries", portLow, portHigh, tries)
		}
		port := portLow + rand.IntN(portHigh-portLow)
		ln, err := net.Listen("tcp", loopbackAddr(port))
		if err != nil {
			continue // taken: draw again
		}
		lns = append(lns, ln)
		ports = append(ports, port)
	}
	return ports, nil
}

func loopbackAddr(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }
