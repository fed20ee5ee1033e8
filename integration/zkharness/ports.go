package zkharness

import (
	"fmt"
	"net"
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
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("zkharness: reserve a free port: %w", err)
		}
		lns = append(lns, ln)
		addr, ok := ln.Addr().(*net.TCPAddr)
		if !ok {
			return nil, fmt.Errorf("zkharness: reserve a free port: unexpected address %v", ln.Addr())
		}
		ports = append(ports, addr.Port)
	}
	return ports, nil
}

func loopbackAddr(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }
