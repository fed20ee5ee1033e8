package discovery_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// Ports of Curator's TestUriSpec.

func TestUriSpecScheme(t *testing.T) {
	spec := discovery.MustParseURISpec("{scheme}://foo.com")
	inst := discovery.Instance{ID: "x", Name: "foo", Port: 5}
	require.Equal(t, "http://foo.com", spec.Build(&inst, nil))
	inst.SSLPort = 5
	require.Equal(t, "https://foo.com", spec.Build(&inst, nil))
}

func TestUriSpecFromInstance(t *testing.T) {
	inst := discovery.Instance{Address: "1.2.3.4", Name: "foo", ID: "bar", Port: 5, SSLPort: 6,
		RegistrationTimeUTC: 789, ServiceType: discovery.Permanent}
	spec := discovery.MustParseURISpec("{scheme}://{address}:{port}:{ssl-port}/{name}/{id}/{registration-time-utc}/{service-type}")
	require.Equal(t, "test://1.2.3.4:5:6/foo/bar/789/permanent", spec.Build(&inst, map[string]any{"scheme": "test"}))
	inst.URISpec = spec
	require.Equal(t, "https://1.2.3.4:5:6/foo/bar/789/permanent", inst.BuildURI(nil))
	require.Equal(t, "", discovery.Instance{}.BuildURI(nil))
}

func TestUriSpecEscapes(t *testing.T) {
	spec := discovery.MustParseURISpec("{one}two-three-{[}four{]}-five{six}")
	require.Equal(t, []discovery.URIPart{{"one", true}, {"two-three-", false}, {"[", true}, {"four", false},
		{"]", true}, {"-five", false}, {"six", true}}, spec.Parts)
	require.Equal(t, "1two-three-{four}-five6", spec.Build(nil, map[string]any{"one": 1, "six": 6}))
}

func TestUriSpecBasic(t *testing.T) {
	spec := discovery.MustParseURISpec("{one}{two}three-four-five{six}seven{eight}")
	require.Equal(t, []discovery.URIPart{{"one", true}, {"two", true}, {"three-four-five", false}, {"six", true},
		{"seven", false}, {"eight", true}}, spec.Parts)
	require.Equal(t, "{one}{two}three-four-five{six}seven{eight}", spec.String())
	// A field without a value is left out; spaces inside a field are trimmed.
	require.Equal(t, "three-four-five7seven", discovery.MustParseURISpec("{one}three-four-five{ six }seven").Build(nil, map[string]any{"six": 7}))
}

func TestUriSpecErrors(t *testing.T) {
	for _, bad := range []string{"{a{b}}", "a}", "{a", "x{"} {
		_, err := discovery.ParseURISpec(bad)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, bad)
	}
	require.Panics(t, func() { discovery.MustParseURISpec("{") })
	var nilSpec *discovery.URISpec
	require.Equal(t, "", nilSpec.Build(nil, nil))
	require.True(t, nilSpec.Equal(nil))
	require.False(t, nilSpec.Equal(&discovery.URISpec{}))
}
