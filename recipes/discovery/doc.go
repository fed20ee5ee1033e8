// Package discovery is curator-x-discovery for Go: services register their
// instances under a base path in Curator's layout and JSON, so that Go and
// Java services (Curator 5's ServiceDiscovery) find each other.
//
//	d, _ := discovery.New(c, "/services")            // no I/O
//	inst := discovery.NewInstance("api")             // random ID, this host's address, now
//	inst.Port = 8080
//	d.Register(ctx, inst)                            // ephemeral node /services/api/<id>, kept
//	d.Update(ctx, inst)                              // new data, same node
//	names, _ := d.QueryForNames(ctx)                 // ["api", ...]
//	all, _ := d.QueryForInstances(ctx, "api")        // read now from the server
//
//	p, _ := d.NewProvider("api", discovery.WithStrategy(discovery.RoundRobin()))
//	p.Start(ctx)                                     // loads and watches the service
//	inst, err := p.GetInstance()                     // from the cached view; ErrNoInstances
//	p.NoteError(inst)                                // the call failed: down after 2 errors in 30 s
//	d.Close(ctx)                                     // closes providers, unregisters everything
//
// # Layout
//
// Instance id of service name is the node base/name/id; its data is the
// instance as JSON. Dynamic instances (the default) are ephemeral nodes,
// DynamicSequential ones ephemeral sequential nodes (base/name/_c_<uuid>-id
// and ZooKeeper's sequence number: protected, so a create whose reply was
// lost leaves no second instance; Curator names them id<seq>), Static and
// Permanent ones persistent nodes. Missing parents are made as containers,
// so base/name goes once its last instance does.
//
// # JSON
//
// Marshal writes what curator-x-discovery 5.4's default
// JsonInstanceSerializer writes, byte for byte (tested against the bytes
// it wrote: testdata/curator-5.4.txt):
//
//	{"name":"api","id":"…","address":"10.0.0.5","port":8080,"sslPort":null,
//	 "payload":null,"registrationTimeUTC":1700000000123,"serviceType":"DYNAMIC",
//	 "uriSpec":{"parts":[{"value":"scheme","variable":true},{"value":"://","variable":false},…]}}
//
// Fields come in Curator's order; port and sslPort are nullable Integers
// (0 here), address, serviceType, uriSpec and payload nullable ("" and nil
// here). "enabled" is left out, as Curator's default (compatible)
// serializer leaves it out (CURATOR-275); WithEnabledField writes it, as
// JsonInstanceSerializer(payloadClass, false) does, and is needed to
// register a disabled instance. Unmarshal reads as Curator 5 reads:
// unknown fields ignored, a missing "enabled" is enabled, a missing
// serviceType is DYNAMIC. Strings are escaped as Jackson escapes them.
// The one asymmetry: Go has no null port or address distinct from 0 and
// "", so a Java instance with port 0 or address "" reads back as null.
//
// # Payloads
//
// Payload is raw JSON. A Java ServiceDiscovery<T> casts what it reads to
// T, so write what T reads: a JSON string for String, null for Void, and
// for a class of its own an object carrying Jackson's type id
// ({"@class":"com.acme.Details",…}, which JavaPayload writes: Curator
// declares the payload @JsonTypeInfo(use=CLASS)). A Java reader whose T
// does not match fails on that instance (a ClassCastException in its
// cache). PayloadOf decodes a payload into a Go value whatever class Java
// wrote (it drops "@class" and unwraps Jackson's [class, value] arrays);
// PayloadClass names the class.
//
// # Registrations
//
// A registration is a recipes/node Node (Curator's PersistentNode), where
// Curator 5.4's ServiceDiscovery re-creates its nodes at each reconnect:
// it is made again, with the latest data (written while cut off
// included), after a session loss or a deletion, and deleted with a
// guaranteed delete by Unregister and Close. Register returns once the
// node exists; a Register that fails leaves nothing. A node already at
// base/name/id of another session (a crashed run of the same instance
// whose session has not expired yet) is taken over as the Node takes one
// over, and the instance's own node is made once that one goes; Curator's
// ServiceDiscovery deletes it and creates its own at once.
//
// # Caches and providers
//
// A Cache (Curator's ServiceCache) keeps one service's instances current
// by watches, on a recipes/cache cache of base/name with depth 1: events
// (Added, Updated, Removed, one Initialized) in order, never dropped, and
// Instances never older than the last event. A Provider (Curator's
// ServiceProvider) picks from its own cache: RoundRobin (default), Random
// or Sticky, among the instances that are enabled, pass every WithFilter
// and are not down (NoteError, DownInstancePolicy). Nodes whose data is no
// instance are left out and logged.
//
// # Errors
//
// Constructors do no I/O and validate first: a *client.PathError for a
// bad base path, zkrecipes.ErrInvalidArgument for a nil client, option, strategy or
// filter; Register and Update refuse an instance Validate refuses with an
// *InstanceError (ErrInvalidInstance) before any I/O. After Close every
// call returns zkrecipes.ErrClosed. Zero and nil values never panic.
package discovery
