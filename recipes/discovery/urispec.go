package discovery

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// The fields URISpec.Build fills from an instance, as Curator names them.
const (
	FieldScheme              = "scheme"                // "https" when the instance has an SSL port, else "http"
	FieldName                = "name"                  // Instance.Name
	FieldID                  = "id"                    // Instance.ID
	FieldAddress             = "address"               // Instance.Address
	FieldPort                = "port"                  // Instance.Port ("" when 0)
	FieldSSLPort             = "ssl-port"              // Instance.SSLPort ("" when 0)
	FieldRegistrationTimeUTC = "registration-time-utc" // Instance.RegistrationTimeUTC
	FieldServiceType         = "service-type"          // Instance.ServiceType, lower case
	FieldOpenBrace           = "["                     // always "{"
	FieldCloseBrace          = "]"                     // always "}"
)

// URISpec is Curator's UriSpec: a URI template such as
// "{scheme}://{address}:{port}/api" made of literal text and replacement
// fields. Its JSON is Curator's: {"parts":[{"value":...,"variable":...}]}.
type URISpec struct {
	// Parts are the template's pieces in order.
	Parts []URIPart `json:"parts"`
}

// URIPart is one piece of a URISpec: literal text, or the name of a
// replacement field.
type URIPart struct {
	// Value is the literal text, or the field's name.
	Value string `json:"value"`
	// Variable is true for a replacement field.
	Variable bool `json:"variable"`
}

// ParseURISpec parses a template as Curator's UriSpec(String) does: text
// between "{" and "}" names a field (trimmed of spaces); "{[}" and "{]}"
// stand for literal braces. A "{" inside a field, a "}" without its "{" and
// an unclosed field are errors wrapping zkrecipes.ErrInvalidArgument.
func ParseURISpec(raw string) (*URISpec, error) {
	s := &URISpec{Parts: []URIPart{}}
	inside := false
	for len(raw) > 0 {
		i := strings.IndexAny(raw, "{}")
		if i < 0 {
			i = len(raw)
		}
		if i > 0 {
			tok := raw[:i]
			if inside {
				tok = strings.TrimSpace(tok)
			}
			s.Parts = append(s.Parts, URIPart{Value: tok, Variable: inside})
			raw = raw[i:]
			continue
		}
		switch raw[0] {
		case '{':
			if inside {
				return nil, errs.Invalid("uri spec: { is not allowed inside of a variable specification")
			}
			inside = true
		case '}':
			if !inside {
				return nil, errs.Invalid("uri spec: } must be preceded by {")
			}
			inside = false
		}
		raw = raw[1:]
	}
	if inside {
		return nil, errs.Invalid("uri spec: final variable not closed - expected }")
	}
	return s, nil
}

// MustParseURISpec is ParseURISpec for templates known to be good; it
// panics on an error.
func MustParseURISpec(raw string) *URISpec {
	s, err := ParseURISpec(raw)
	if err != nil {
		panic(err)
	}
	return s
}

// Build fills the template as Curator's UriSpec.build does: the fields of
// inst (when not nil; see the Field constants), then vars, which override
// them; a field without a value is left out. Values are formatted with
// fmt.Sprint. A nil URISpec builds "".
func (s *URISpec) Build(inst *Instance, vars map[string]any) string {
	if s == nil {
		return ""
	}
	local := map[string]any{FieldOpenBrace: "{", FieldCloseBrace: "}", FieldScheme: "http"}
	if inst != nil {
		local[FieldName] = inst.Name
		local[FieldID] = inst.ID
		local[FieldAddress] = inst.Address
		local[FieldPort] = portText(inst.Port)
		local[FieldSSLPort] = portText(inst.SSLPort)
		local[FieldRegistrationTimeUTC] = inst.RegistrationTimeUTC
		local[FieldServiceType] = strings.ToLower(string(inst.ServiceType))
		if inst.SSLPort != 0 {
			local[FieldScheme] = "https"
		}
	}
	var b strings.Builder
	for _, p := range s.Parts {
		if !p.Variable {
			b.WriteString(p.Value)
			continue
		}
		v, ok := vars[p.Value]
		if !ok {
			v, ok = local[p.Value]
		}
		if ok && v != nil {
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

func portText(p int) string {
	if p == 0 {
		return ""
	}
	return fmt.Sprint(p)
}

// String is the template again, as ParseURISpec would read it.
func (s *URISpec) String() string {
	if s == nil {
		return "null"
	}
	var b strings.Builder
	for _, p := range s.Parts {
		if p.Variable {
			b.WriteString("{" + p.Value + "}")
		} else {
			b.WriteString(p.Value)
		}
	}
	return b.String()
}

// Equal reports whether s and o have the same parts (two nil specs are
// equal; nil and an empty spec are not, as in Curator).
func (s *URISpec) Equal(o *URISpec) bool {
	if s == nil || o == nil {
		return s == nil && o == nil
	}
	return slices.Equal(s.Parts, o.Parts)
}
