package discovery_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

type details struct {
	Val    string `json:"val"`
	Weight int    `json:"weight"`
}

func TestJavaPayload(t *testing.T) {
	p, err := discovery.JavaPayload("CuratorSerialize$Payload", details{Val: "v", Weight: 7})
	require.NoError(t, err)
	require.Equal(t, `{"@class":"CuratorSerialize$Payload","val":"v","weight":7}`, string(p))
	p, err = discovery.JavaPayload("java.util.ArrayList", []string{"Test value 1", "Test value 2"})
	require.NoError(t, err)
	require.Equal(t, `["java.util.ArrayList",["Test value 1","Test value 2"]]`, string(p))
	p, err = discovery.JavaPayload("com.acme.Empty", struct{}{})
	require.NoError(t, err)
	require.Equal(t, `{"@class":"com.acme.Empty"}`, string(p))
	p, err = discovery.JavaPayload("com.acme.X", nil)
	require.NoError(t, err)
	require.Nil(t, p)
	for _, bad := range []string{"", "a..b", "1x.y", "a b"} {
		_, err = discovery.JavaPayload(bad, 1)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, bad)
	}
	_, err = discovery.JavaPayload("a.B", func() {})
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
}

func TestPayloadOf(t *testing.T) {
	c := javaCases
	d, err := discovery.PayloadOf[details](c["class"])
	require.NoError(t, err)
	require.Equal(t, details{Val: "v", Weight: 7}, d)
	require.Equal(t, "CuratorSerialize$Payload", discovery.PayloadClass(c["class"]))

	m, err := discovery.PayloadOf[map[string]any](c["map"])
	require.NoError(t, err)
	require.Equal(t, map[string]any{"1": "Test value 1", "n": float64(2)}, m, "no @class in the map")
	require.Equal(t, "java.util.LinkedHashMap", discovery.PayloadClass(c["map"]))

	l, err := discovery.PayloadOf[[]string](c["list"])
	require.NoError(t, err)
	require.Equal(t, []string{"Test value 1", "Test value 2"}, l)
	n, err := discovery.PayloadOf[int64](c["long"])
	require.NoError(t, err)
	require.Equal(t, int64(42), n)
	require.Equal(t, "java.lang.Long", discovery.PayloadClass(c["long"]))

	s, err := discovery.PayloadOf[string](c["string"])
	require.NoError(t, err)
	require.Equal(t, "thing", s)
	require.Equal(t, "", discovery.PayloadClass(c["string"]))

	s, err = discovery.PayloadOf[string](c["void"])
	require.NoError(t, err)
	require.Equal(t, "", s, "null payload: zero value")

	// A plain two-element array whose first element is no class name is
	// not a wrapper.
	pair, err := discovery.PayloadOf[[]any](discovery.Instance{Payload: json.RawMessage(`["a b",1]`)})
	require.NoError(t, err)
	require.Len(t, pair, 2)

	_, err = discovery.PayloadOf[int](c["string"])
	require.ErrorIs(t, err, discovery.ErrBadData)
}
