package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBadPackage: every rule fires on a package built to break them all.
func TestBadPackage(t *testing.T) {
	got, err := checkDir("testdata/bad")
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"Option is not func(*<unexported options>) error",
		"ProviderOption is not func(*<unexported options>) error",
		"Participant is an exported alias of internal type lockq.Participant",
		"ErrClosed re-exports zkrecipes.ErrClosed",
		"WithLogger: recipes log through the client's logger",
		"Start is not Start(ctx context.Context) error",
		"Close is neither Close() error nor Close(ctx context.Context) error",
		"Events is not Events() (<-chan T, func())",
		"Put takes a context.Context but not first",
		"no `type Option func(*options) error`",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q among:\n%s", want, all)
		}
	}
}

// TestGoodPackage: a package that keeps them gets no complaint.
func TestGoodPackage(t *testing.T) {
	got, err := checkDir("testdata/good")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 0 {
		t.Errorf("complaints about a good package:\n%s", strings.Join(got, "\n"))
	}
}

// TestRecipes: the repository's own recipes keep the conventions.
func TestRecipes(t *testing.T) {
	dirs, err := filepath.Glob("../../recipes/*")
	if err != nil || len(dirs) < 10 {
		t.Fatalf("recipes: %v, %v", dirs, err)
	}
	for _, d := range dirs {
		got, err := checkDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range got {
			t.Error(o)
		}
	}
}
