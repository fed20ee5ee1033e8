package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Marshal encodes inst as curator-x-discovery 5.4's default
// JsonInstanceSerializer writes it: the fields of Curator's
// OldServiceInstance, without "enabled" (its "compatible serialization
// mode", CURATOR-275), in Jackson's order and escaping, byte for byte. A
// disabled instance cannot be written so (Curator would silently write it
// enabled): an *InstanceError; use MarshalFull. Zero Port, SSLPort, empty
// Address, ServiceType and nil Payload, URISpec are written as null.
func Marshal(inst Instance) ([]byte, error) {
	if inst.Disabled {
		return nil, &InstanceError{Name: inst.Name, ID: inst.ID, Field: "enabled",
			Reason: "a disabled instance needs the \"enabled\" field: MarshalFull, or a Discovery WithEnabledField"}
	}
	return encode(inst, false)
}

// MarshalFull encodes inst as JsonInstanceSerializer(payloadClass, false)
// writes it: Marshal's fields followed by "enabled". Curator 5 reads it;
// Curator releases older than CURATOR-275 (2.9) may refuse it.
func MarshalFull(inst Instance) ([]byte, error) { return encode(inst, true) }

// MarshalJSON is MarshalFull, so that json.Marshal of instances (and of
// values holding them) gives Curator's full form.
func (i Instance) MarshalJSON() ([]byte, error) { return MarshalFull(i) }

// UnmarshalJSON is Unmarshal, for json.Unmarshal.
func (i *Instance) UnmarshalJSON(data []byte) error {
	v, err := Unmarshal(data)
	if err != nil {
		return err
	}
	*i = v
	return nil
}

func encode(inst Instance, enabled bool) ([]byte, error) {
	if !inst.ServiceType.known() {
		return nil, &InstanceError{Name: inst.Name, ID: inst.ID, Field: "serviceType",
			Reason: fmt.Sprintf("%q is none of Curator's types", string(inst.ServiceType))}
	}
	b := make([]byte, 0, 256+len(inst.Payload))
	b = append(b, `{"name":`...)
	b = appendString(b, inst.Name)
	b = append(b, `,"id":`...)
	b = appendString(b, inst.ID)
	b = append(b, `,"address":`...)
	b = appendOptString(b, inst.Address)
	b = append(b, `,"port":`...)
	b = appendPort(b, inst.Port)
	b = append(b, `,"sslPort":`...)
	b = appendPort(b, inst.SSLPort)
	b = append(b, `,"payload":`...)
	if isNull(inst.Payload) {
		b = append(b, "null"...)
	} else {
		var buf bytes.Buffer
		if err := json.Compact(&buf, inst.Payload); err != nil {
			return nil, &InstanceError{Name: inst.Name, ID: inst.ID, Field: "payload", Reason: "not valid JSON: " + err.Error()}
		}
		b = append(b, buf.Bytes()...)
	}
	b = append(b, `,"registrationTimeUTC":`...)
	b = strconv.AppendInt(b, inst.RegistrationTimeUTC, 10)
	b = append(b, `,"serviceType":`...)
	b = appendOptString(b, string(inst.ServiceType))
	b = append(b, `,"uriSpec":`...)
	if inst.URISpec == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"parts":[`...)
		for k, p := range inst.URISpec.Parts {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"value":`...)
			b = appendString(b, p.Value)
			b = append(b, `,"variable":`...)
			b = strconv.AppendBool(b, p.Variable)
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	if enabled {
		b = append(b, `,"enabled":`...)
		b = strconv.AppendBool(b, !inst.Disabled)
	}
	return append(b, '}'), nil
}

func appendPort(b []byte, p int) []byte {
	if p == 0 {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(p), 10)
}

func appendOptString(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return appendString(b, s)
}

const hexUpper = "0123456789ABCDEF"

// appendString writes s as a JSON string escaped as Jackson 2.14's
// writeValueAsBytes does: '"' and '\\' escaped, \b \t \n \f \r short,
// other control characters as \u00XX, characters beyond the Basic
// Multilingual Plane as an escaped UTF-16 surrogate pair, everything else
// (non-ASCII, '<', '&', U+2028...) as plain UTF-8. Invalid UTF-8 becomes
// U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\b':
			b = append(b, `\b`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\f':
			b = append(b, `\f`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r < 0x20:
			b = appendU(b, uint16(r))
		case r >= 0x10000:
			r -= 0x10000
			b = appendU(b, uint16(0xD800+(r>>10)))
			b = appendU(b, uint16(0xDC00+(r&0x3FF)))
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

func appendU(b []byte, u uint16) []byte {
	return append(b, '\\', 'u', hexUpper[u>>12], hexUpper[u>>8&0xF], hexUpper[u>>4&0xF], hexUpper[u&0xF])
}

// wire is the JSON of an instance as read: a pointer for every field that
// Curator lets be absent or null.
type wire struct {
	Name                *string         `json:"name"`
	ID                  *string         `json:"id"`
	Address             *string         `json:"address"`
	Port                *int32          `json:"port"`
	SSLPort             *int32          `json:"sslPort"`
	Payload             json.RawMessage `json:"payload"`
	RegistrationTimeUTC *int64          `json:"registrationTimeUTC"`
	ServiceType         json.RawMessage `json:"serviceType"`
	URISpec             *URISpec        `json:"uriSpec"`
	Enabled             json.RawMessage `json:"enabled"`
}

// Unmarshal decodes an instance as Curator 5.4's JsonInstanceSerializer
// reads one: unknown fields are ignored; a missing "serviceType" is
// Dynamic (Curator's default) and a null one empty; a missing "enabled" is
// enabled, and null or false disabled (Jackson gives a null primitive
// false); null port, sslPort, address are zero. An error is a *DataError.
// Unmarshal does not check that the instance could be registered: see
// Validate.
func Unmarshal(data []byte) (Instance, error) {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return Instance{}, &DataError{Err: err}
	}
	if bytes.TrimSpace(data)[0] != '{' {
		return Instance{}, &DataError{Err: fmt.Errorf("not a JSON object")}
	}
	inst := Instance{ServiceType: Dynamic}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	inst.Name, inst.ID, inst.Address = str(w.Name), str(w.ID), str(w.Address)
	if w.Port != nil {
		inst.Port = int(*w.Port)
	}
	if w.SSLPort != nil {
		inst.SSLPort = int(*w.SSLPort)
	}
	if !isNull(w.Payload) {
		inst.Payload = w.Payload
	}
	if w.RegistrationTimeUTC != nil {
		inst.RegistrationTimeUTC = *w.RegistrationTimeUTC
	}
	if w.ServiceType != nil {
		var t *string
		if err := json.Unmarshal(w.ServiceType, &t); err != nil {
			return Instance{}, &DataError{Err: fmt.Errorf("serviceType: %w", err)}
		}
		inst.ServiceType = ServiceType(str(t))
		if !inst.ServiceType.known() {
			return Instance{}, &DataError{Err: fmt.Errorf("serviceType %q is none of Curator's types", *t)}
		}
	}
	if w.URISpec != nil {
		inst.URISpec = w.URISpec
		if inst.URISpec.Parts == nil {
			inst.URISpec.Parts = []URIPart{}
		}
	}
	if w.Enabled != nil {
		var e *bool
		if err := json.Unmarshal(w.Enabled, &e); err != nil {
			return Instance{}, &DataError{Err: fmt.Errorf("enabled: %w", err)}
		}
		inst.Disabled = e == nil || !*e
	}
	return inst, nil
}
