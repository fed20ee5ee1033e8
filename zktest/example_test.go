package zktest_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// Start a three-server ensemble, stop one member and bring it back.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	c, err := zktest.Start(ctx, zktest.WithServers(3))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	fmt.Println("connect to", c.ConnectString())
	if err := c.StopServer(ctx, 0); err != nil {
		log.Fatal(err)
	}
	// ... exercise the client while server 0 is down ...
	if err := c.StartServer(ctx, 0); err != nil {
		log.Fatal(err)
	}
}
