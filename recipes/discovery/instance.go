package discovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// ServiceType is curator-x-discovery's ServiceType: how an instance's node
// lives. The empty ServiceType is JSON null; Register treats it as Dynamic.
type ServiceType string

// The service types, spelled as Curator writes them.
const (
	// Dynamic: an ephemeral node at base/name/id, gone with the session that
	// registered it (and made again by the registering Discovery after a
	// session loss).
	Dynamic ServiceType = "DYNAMIC"
	// DynamicSequential: an ephemeral sequential node, base/name/id followed
	// by ZooKeeper's ten-digit sequence number.
	DynamicSequential ServiceType = "DYNAMIC_SEQUENTIAL"
	// Static: a persistent node. Curator writes Static and Permanent alike.
	Static ServiceType = "STATIC"
	// Permanent: a persistent node.
	Permanent ServiceType = "PERMANENT"
)

// known reports whether t is one of Curator's types (or empty).
func (t ServiceType) known() bool {
	switch t {
	case "", Dynamic, DynamicSequential, Static, Permanent:
		return true
	}
	return false
}

// IsDynamic reports whether instances of type t live in ephemeral nodes
// (Curator's isDynamic). The empty type counts as Dynamic.
func (t ServiceType) IsDynamic() bool { return t == "" || t == Dynamic || t == DynamicSequential }

// Instance is curator-x-discovery's ServiceInstance: one instance of a
// named service, as it is stored in the node base/name/id. Its fields map to
// Curator's JSON fields one to one (see the package documentation for the
// encoding).
type Instance struct {
	// Name is the service's name (required): the node base/Name holds its
	// instances.
	Name string
	// ID identifies the instance within its service (required, unique): its
	// node's name. NewInstance makes a random UUID.
	ID string
	// Address is where the instance is reached; "" is JSON null.
	Address string
	// Port is the instance's port; 0 is JSON null (Curator's port is a
	// nullable Integer, null when unset).
	Port int
	// SSLPort is the instance's TLS port ("sslPort"); 0 is JSON null.
	SSLPort int
	// Payload is the instance's payload: any JSON value, kept as raw JSON;
	// nil is JSON null. A Java service reads it into its payload class:
	// see JavaPayload, PayloadOf and the package documentation.
	Payload json.RawMessage
	// RegistrationTimeUTC is when the instance was made, in milliseconds
	// since the Unix epoch ("registrationTimeUTC"); see Registered.
	RegistrationTimeUTC int64
	// ServiceType says how the node lives; "" is JSON null, registered as
	// Dynamic.
	ServiceType ServiceType
	// URISpec is the instance's URI template ("uriSpec"); nil is JSON null.
	URISpec *URISpec
	// Disabled marks the instance out of service: Curator's "enabled"
	// field, negated, so that the zero Instance is enabled. Providers skip
	// disabled instances. Writing it needs WithEnabledField (Curator's
	// default serializer leaves "enabled" out); a node without the field
	// reads as enabled.
	Disabled bool
}

// NewInstance returns an instance of the service name as Curator's
// ServiceInstance.builder() makes one: a random UUID for ID, the first
// non-loopback address of this machine for Address ("" when it has none),
// now for RegistrationTimeUTC, and Dynamic. It does no network I/O.
func NewInstance(name string) Instance {
	return Instance{
		Name:                name,
		ID:                  uuid.NewString(),
		Address:             LocalAddress(),
		RegistrationTimeUTC: time.Now().UnixMilli(),
		ServiceType:         Dynamic,
	}
}

// LocalAddress returns the first address of this machine that Curator's
// default LocalIpFilter accepts (not loopback; not link-local unless on a
// point-to-point interface), or "" when there is none.
func LocalAddress() string {
	ifs, err := net.Interfaces()
	if err != nil {
		return ""
	}
	for _, nif := range ifs {
		addrs, err := nif.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok || ipn.IP.IsLoopback() {
				continue
			}
			linkLocal := ipn.IP.IsLinkLocalUnicast() || ipn.IP.IsLinkLocalMulticast()
			if nif.Flags&net.FlagPointToPoint != 0 || !linkLocal {
				return ipn.IP.String()
			}
		}
	}
	return ""
}

// Registered is RegistrationTimeUTC as a time.
func (i Instance) Registered() time.Time { return time.UnixMilli(i.RegistrationTimeUTC) }

// Enabled reports whether the instance is in service (Curator's
// isEnabled): !Disabled.
func (i Instance) Enabled() bool { return !i.Disabled }

// Equal reports whether i and o are the same instance field for field, as
// Curator's ServiceInstance.equals: payloads are compared as JSON text
// without insignificant white space.
func (i Instance) Equal(o Instance) bool {
	return i.Name == o.Name && i.ID == o.ID && i.Address == o.Address && i.Port == o.Port &&
		i.SSLPort == o.SSLPort && i.RegistrationTimeUTC == o.RegistrationTimeUTC &&
		i.ServiceType == o.ServiceType && i.Disabled == o.Disabled &&
		samePayload(i.Payload, o.Payload) && i.URISpec.Equal(o.URISpec)
}

// String describes the instance as Curator's toString does.
func (i Instance) String() string {
	return fmt.Sprintf("ServiceInstance{name='%s', id='%s', address='%s', port=%d, sslPort=%d, payload=%s, registrationTimeUTC=%d, serviceType=%s, uriSpec=%s, enabled=%t}",
		i.Name, i.ID, i.Address, i.Port, i.SSLPort, payloadText(i.Payload), i.RegistrationTimeUTC, i.ServiceType, i.URISpec, i.Enabled())
}

// BuildURI fills the instance's URISpec (see URISpec.Build); "" without
// one, as Curator's buildUriSpec.
func (i Instance) BuildURI(vars map[string]any) string {
	if i.URISpec == nil {
		return ""
	}
	return i.URISpec.Build(&i, vars)
}

// Validate reports, as an *InstanceError, why i cannot be registered: a
// name or id that is empty or is not a node name (no "/", not "." or "..",
// no character ZooKeeper refuses), a port or SSL port outside 0-65535, a
// service type Curator does not know, or a payload that is not JSON.
func (i Instance) Validate() error {
	bad := func(field, reason string) error {
		return &InstanceError{Name: i.Name, ID: i.ID, Field: field, Reason: reason}
	}
	if err := checkSegment(i.Name); err != "" {
		return bad("name", err)
	}
	if err := checkSegment(i.ID); err != "" {
		return bad("id", err)
	}
	if i.Port < 0 || i.Port > 65535 {
		return bad("port", fmt.Sprintf("%d is not a port", i.Port))
	}
	if i.SSLPort < 0 || i.SSLPort > 65535 {
		return bad("sslPort", fmt.Sprintf("%d is not a port", i.SSLPort))
	}
	if !i.ServiceType.known() {
		return bad("serviceType", fmt.Sprintf("%q is none of Curator's types", string(i.ServiceType)))
	}
	if len(i.Payload) > 0 && !json.Valid(i.Payload) {
		return bad("payload", "not valid JSON")
	}
	return nil
}

// checkSegment says why s cannot be one node's name, or "".
func checkSegment(s string) string {
	switch {
	case s == "":
		return "empty"
	case strings.Contains(s, "/"):
		return "contains '/'"
	}
	if err := client.ValidatePath("/x/" + s); err != nil { // any parent: only s is judged
		var pe *client.PathError
		if errors.As(err, &pe) {
			return pe.Reason
		}
		return err.Error()
	}
	return ""
}

func samePayload(a, b json.RawMessage) bool {
	if isNull(a) || isNull(b) {
		return isNull(a) == isNull(b)
	}
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

func payloadText(raw json.RawMessage) string {
	if isNull(raw) {
		return "null"
	}
	return string(raw)
}
