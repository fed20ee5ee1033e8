package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPack: the proxy has the version's list, info, mod and zip; the zip
// holds the module's files under module@version/, without the nested
// module, the version-control directory or the workspace files.
func TestPack(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{
		"go.mod":               "module example.com/Root\n\ngo 1.26.0\n",
		"a.go":                 "package root\n",
		"sub/b.go":             "package sub\n",
		"contrib/x/go.mod":     "module example.com/Root/contrib/x\n",
		"contrib/x/x.go":       "package x\n",
		"contrib/README.md":    "contrib\n",
		".git/HEAD":            "ref\n",
		"go.work":              "go 1.26.0\n",
		"go.work.sum":          "",
		"sub/testdata/t.txt":   "t\n",
		"contrib/x/deep/d.go":  "package deep\n",
		"contrib/y/notmod.txt": "y\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mod, err := pack(dir, "v0.1.0", out)
	if err != nil || mod != "example.com/Root" {
		t.Fatalf("pack: %q, %v", mod, err)
	}
	at := filepath.Join(out, "example.com", "!root", "@v")
	for name, want := range map[string]string{"list": "v0.1.0\n", "v0.1.0.mod": "module example.com/Root\n\ngo 1.26.0\n"} {
		if got, err := os.ReadFile(filepath.Join(at, name)); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if info, err := os.ReadFile(filepath.Join(at, "v0.1.0.info")); err != nil || !strings.Contains(string(info), `"Version":"v0.1.0"`) {
		t.Errorf("info: %s, %v", info, err)
	}
	zr, err := zip.OpenReader(filepath.Join(at, "v0.1.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	want := []string{
		"example.com/Root@v0.1.0/a.go",
		"example.com/Root@v0.1.0/contrib/README.md",
		"example.com/Root@v0.1.0/contrib/y/notmod.txt",
		"example.com/Root@v0.1.0/go.mod",
		"example.com/Root@v0.1.0/sub/b.go",
		"example.com/Root@v0.1.0/sub/testdata/t.txt",
	}
	if !slices.Equal(names, want) {
		t.Errorf("zip files\n%v\nwant\n%v", names, want)
	}
}

// TestPackBadInput: a version that is no release version, or a directory
// without a module, is an error, and nothing is written.
func TestPackBadInput(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	if _, err := pack(dir, "v0.1.0", out); err == nil {
		t.Error("a directory without go.mod packed")
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"", "0.1.0", "v1", "v0.1.0-rc1", "latest"} {
		if _, err := pack(dir, v, out); err == nil {
			t.Errorf("version %q packed", v)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("wrote %v", entries)
	}
}
