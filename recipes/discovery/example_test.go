package discovery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// connect starts a client with a session of its own, standing for one
// process, on the examples' throwaway server.
func connect(ctx context.Context) (*client.Client, error) { return itest.ConnectExample(ctx) }

// Two instances of a service register, each in its own process (session);
// a client's provider hands them out in turn, and once one process ends
// (its session, and with it its ephemeral node, goes), only the other.
func ExampleDiscovery() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const base = "/examples/discovery/services"

	var servers []*client.Client
	for _, port := range []int{8081, 8082} {
		c, err := connect(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer c.Close()
		servers = append(servers, c)
		d, _ := discovery.New(c, base)
		defer d.Close(ctx)
		inst := discovery.NewInstance("api")
		inst.ID = fmt.Sprintf("api-%d", port)
		inst.Address = "10.0.0.5"
		inst.Port = port
		inst.URISpec = discovery.MustParseURISpec("{scheme}://{address}:{port}/v1")
		inst.Payload, _ = json.Marshal("zone-a") // what a Java ServiceDiscovery<String> reads
		if err := d.Register(ctx, inst); err != nil {
			fmt.Println(err)
			return
		}
	}

	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	d, _ := discovery.New(c, base)
	defer d.Close(ctx)
	names, _ := d.QueryForNames(ctx)
	fmt.Println("services:", names)
	p, _ := d.NewProvider("api") // round robin
	if err := p.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		inst, _ := p.GetInstance()
		zone, _ := discovery.PayloadOf[string](inst)
		fmt.Println("call", inst.BuildURI(nil), "in", zone)
	}

	servers[0].Close() // the first process ends
	for ctx.Err() == nil {
		if all, _ := p.GetAllInstances(); len(all) == 1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for range 2 {
		inst, _ := p.GetInstance()
		fmt.Println("call", inst.BuildURI(nil))
	}
	// Output:
	// services: [api]
	// call http://10.0.0.5:8081/v1 in zone-a
	// call http://10.0.0.5:8082/v1 in zone-a
	// call http://10.0.0.5:8081/v1 in zone-a
	// call http://10.0.0.5:8082/v1
	// call http://10.0.0.5:8082/v1
}
