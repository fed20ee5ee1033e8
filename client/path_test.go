package client

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidatePathAccepts(t *testing.T) {
	for _, p := range []string{"/", "/a", "/a/b", "/locks/job-1/_c_x-lock-0000000001", "/zoo", "/zookeeperish", "/é/日本", "/a.b/..c/.d"} {
		assert.NoError(t, ValidatePath(p), p)
	}
}

func TestValidatePathRejects(t *testing.T) {
	cases := map[string]string{
		"":                 "empty",
		"a":                "must start",
		"a/b":              "must start",
		"/a/":              "must not end",
		"//":               "must not end",
		"/a//b":            "empty segment",
		"/./a":             "relative",
		"/a/..":            "relative",
		"/a/../b":          "relative",
		"/a\x00b":          "forbidden",
		"/a\nb":            "forbidden",
		"/a\x7fb":          "forbidden",
		"/a\u0085b":        "forbidden",
		"/a\ue000":         "forbidden",
		"/a\ufff5":         "forbidden",
		"/a\xff":           "UTF-8",
		"/zookeeper":       "reserved",
		"/zookeeper/quota": "reserved",
	}
	for p, reason := range cases {
		err := ValidatePath(p)
		require.Error(t, err, "%q", p)
		assert.True(t, errors.Is(err, zkrecipes.ErrInvalidPath), "%q: %v", p, err)
		var pe *PathError
		require.True(t, errors.As(err, &pe), "%q", p)
		assert.Equal(t, p, pe.Path)
		assert.Contains(t, pe.Reason, reason, "%q", p)
	}
}

func TestNormalizeNamespace(t *testing.T) {
	for in, want := range map[string]string{"": "", "/": "", "app": "/app", "/app": "/app", "app/x": "/app/x"} {
		got, err := normalizeNamespace(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"app/", "a//b", "zookeeper", "/zookeeper/x", "a/../b"} {
		_, err := normalizeNamespace(bad)
		assert.ErrorIs(t, err, zkrecipes.ErrInvalidPath, bad)
	}
}

func TestParentAndJoin(t *testing.T) {
	assert.Equal(t, "/", parentOf("/a"))
	assert.Equal(t, "/a", parentOf("/a/b"))
	assert.Equal(t, "/a/b", parentOf("/a/b/c"))
	assert.Equal(t, "/x", joinPath("/", "x"))
	assert.Equal(t, "/a/x", joinPath("/a", "x"))
}

// FuzzValidatePath checks that no input panics and that every accepted path
// has the shape ZooKeeper requires.
func FuzzValidatePath(f *testing.F) {
	for _, s := range []string{"/", "/a/b", "", "a", "/a/", "//", "/a/../b", "/zookeeper", "/\x00", "/\ud7ff", "/\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		err := ValidatePath(p)
		if err != nil {
			if !errors.Is(err, zkrecipes.ErrInvalidPath) {
				t.Fatalf("%q: error %v does not wrap zkrecipes.ErrInvalidPath", p, err)
			}
			return
		}
		if p == "/" {
			return
		}
		if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "//") || !utf8.ValidString(p) {
			t.Fatalf("accepted malformed path %q", p)
		}
		for _, seg := range strings.Split(p[1:], "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("accepted relative segment in %q", p)
			}
		}
		for _, r := range p {
			if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
				t.Fatalf("accepted control character in %q", p)
			}
		}
		if p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/") {
			t.Fatalf("accepted reserved path %q", p)
		}
		// A valid path stays valid under a valid namespace.
		if err := ValidatePath("/ns" + p); err != nil {
			t.Fatalf("%q valid but /ns%s not: %v", p, p, err)
		}
	})
}
