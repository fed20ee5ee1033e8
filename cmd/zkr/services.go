package main

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// ServiceSummary is one service in zkr services BASE. Its JSON field names
// are stable.
type ServiceSummary struct {
	// Name is the service's name: the node BASE/<name>.
	Name string `json:"name"`
	// Instances counts the nodes whose data is a service instance, Enabled
	// those of them that are enabled, Unreadable the nodes whose data is no
	// instance.
	Instances  int `json:"instances"`
	Enabled    int `json:"enabled"`
	Unreadable int `json:"unreadable"`
}

// ServicesView is what zkr services BASE prints.
type ServicesView struct {
	// Base is the base path (relative to the namespace).
	Base string `json:"base"`
	// Services are the services under Base, sorted by name.
	Services []ServiceSummary `json:"services"`
}

// InstanceView is one instance node in zkr services BASE NAME. Its JSON
// field names are stable. A node whose data is no instance has Node,
// Session, Data and Error, and zero values elsewhere.
type InstanceView struct {
	// Node is the instance's node name under BASE/NAME (its id; a
	// DYNAMIC_SEQUENTIAL instance's adds the sequence number).
	Node string `json:"node"`
	// The instance's fields, from its JSON (curator-x-discovery's
	// ServiceInstance): id, name, address, port and ssl_port (null when
	// unset), service_type, enabled.
	ID          string `json:"id"`
	Name        string `json:"name"`
	Address     string `json:"address"`
	Port        *int   `json:"port"`
	SSLPort     *int   `json:"ssl_port"`
	ServiceType string `json:"service_type"`
	Enabled     bool   `json:"enabled"`
	// Registered is registrationTimeUTC as a time (RFC 3339);
	// RegistrationTimeUTC is it in milliseconds since the epoch.
	Registered          time.Time `json:"registered"`
	RegistrationTimeUTC int64     `json:"registration_time_utc"`
	// Session is the node's owner session in hex, 0x0 for a persistent
	// node (STATIC, PERMANENT).
	Session string `json:"session"`
	// URISpec is the instance's URI template and URI the URI it builds;
	// both absent without a uriSpec.
	URISpec string `json:"uri_spec,omitempty"`
	URI     string `json:"uri,omitempty"`
	// Payload is the instance's payload as raw JSON, absent when null.
	Payload json.RawMessage `json:"payload,omitempty"`
	// Error says why the node's data is no instance; Data is then that
	// data (text, or 0x-hex), DataBytes its length.
	Error     string `json:"error,omitempty"`
	Data      string `json:"data,omitempty"`
	DataBytes int    `json:"data_bytes,omitempty"`
}

// ServiceView is what zkr services BASE NAME prints.
type ServiceView struct {
	// Base and Name are the base path and the service's name.
	Base string `json:"base"`
	Name string `json:"name"`
	// Instances are the nodes of BASE/NAME, sorted by node name.
	Instances []InstanceView `json:"instances"`
}

const servicesFields = `JSON fields (stable). Without NAME: base, services[] sorted by name, each
{name, instances (nodes holding an instance), enabled, unreadable (nodes whose
data is no instance)}. With NAME: base, name, instances[] sorted by node, each
{node, id, name, address, port, ssl_port (null when unset), service_type,
enabled, registered (RFC 3339), registration_time_utc (ms), session (hex, 0x0
when persistent), uri_spec, uri, payload (raw JSON), error, data and data_bytes (for a
node whose data is no instance)}.`

// instanceOf decodes one instance node with recipes/discovery's own decoder.
func instanceOf(r rawNode) InstanceView {
	v := InstanceView{Node: r.Name, Session: sessionHex(r.EphemeralOwner)}
	inst, err := discovery.Unmarshal(r.Data)
	if err != nil {
		var de *discovery.DataError
		if errors.As(err, &de) && de.Err != nil {
			err = de.Err
		}
		v.Error, v.Data, v.DataBytes = "not a service instance: "+oneLine(err.Error()), decodeData(r.Data), len(r.Data)
		return v
	}
	v.ID, v.Name, v.Address = inst.ID, inst.Name, inst.Address
	v.ServiceType, v.Enabled = string(inst.ServiceType), inst.Enabled()
	if inst.Port != 0 {
		v.Port = &inst.Port
	}
	if inst.SSLPort != 0 {
		v.SSLPort = &inst.SSLPort
	}
	v.Registered, v.RegistrationTimeUTC = inst.Registered().UTC(), inst.RegistrationTimeUTC
	if inst.URISpec != nil {
		v.URISpec, v.URI = inst.URISpec.String(), inst.BuildURI(nil)
	}
	if p := inst.Payload; len(p) > 0 && string(p) != "null" {
		v.Payload = p
	}
	return v
}

// readService reads the instance nodes of BASE/NAME. A missing node is an
// error matching zk.ErrNoNode.
func readService(ctx context.Context, c clientAPI, base, name string) ([]InstanceView, error) {
	dir := join(base, name)
	kids, _, err := c.Children(ctx, dir)
	if err != nil {
		return nil, err
	}
	raw, err := readChildren(ctx, c, dir, kids)
	if err != nil {
		return nil, err
	}
	out := make([]InstanceView, 0, len(raw))
	for _, r := range raw {
		out = append(out, instanceOf(r))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out, nil
}

// readServices summarises every service under base; a service deleted
// meanwhile is left out.
func readServices(ctx context.Context, c clientAPI, base string) (*ServicesView, error) {
	names, _, err := c.Children(ctx, base)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	v := &ServicesView{Base: base, Services: []ServiceSummary{}}
	for _, n := range names {
		insts, err := readService(ctx, c, base, n)
		if isNoNode(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		v.Services = append(v.Services, summarize(n, insts))
	}
	return v, nil
}

// summarize counts a service's instances, the enabled ones and the nodes
// whose data is no instance.
func summarize(name string, insts []InstanceView) ServiceSummary {
	s := ServiceSummary{Name: name}
	for _, i := range insts {
		switch {
		case i.Error != "":
			s.Unreadable++
		case i.Enabled:
			s.Instances++
			s.Enabled++
		default:
			s.Instances++
		}
	}
	return s
}

func newServices(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "services BASE [NAME]",
		Short: "List service discovery's services, or one service's instances (recipes/discovery, curator-x-discovery)",
		Long: `services reads curator-x-discovery's layout (recipes/discovery): instance ID of
service NAME is the node BASE/NAME/ID holding the instance as JSON, so Java
and Go registrations show alike.

Without NAME: each service under BASE with its number of instances, how many
are enabled, and how many nodes hold data that is no instance. With NAME: one
line per instance: id, address, port, ssl port, service type, enabled,
registration time, owner session and the URI its uriSpec builds. A node whose
data is no instance is listed as such, with the decoder's complaint.

Exit 1 when BASE (or BASE/NAME) does not exist: a service's node goes once its
last instance does.

` + servicesFields,
		Example: `  zkr services /services
  zkr services /services api
  zkr services /services api --json | jq -r '.instances[] | select(.enabled) | .uri'`,
		Args: argsOrUsage(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			base := args[0]
			if err := checkPath(base); err != nil {
				return err
			}
			if len(args) == 2 {
				if name := args[1]; name == "" || strings.Contains(name, "/") {
					return usageErr("bad service name %q: a node name, without '/'", name)
				} else if err := checkPath(join(base, name)); err != nil {
					return err
				}
			}
			return g.with(func(ctx context.Context, c clientAPI) error {
				out := cmd.OutOrStdout()
				if len(args) == 1 {
					v, err := readServices(ctx, c, base)
					if err != nil {
						return opErr(base, err)
					}
					if g.json {
						return writeJSON(out, v)
					}
					writeServices(out, v)
					return nil
				}
				insts, err := readService(ctx, c, base, args[1])
				if err != nil {
					return opErr(join(base, args[1]), err)
				}
				v := &ServiceView{Base: base, Name: args[1], Instances: insts}
				if g.json {
					return writeJSON(out, v)
				}
				writeService(out, v)
				return nil
			})
		},
	}
	addJSON(cmd, g)
	return cmd
}
