package zkrecipes_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeMaxLines bounds README.md: it is the front door, and everything
// longer lives under docs/.
const readmeMaxLines = 300

// quickStartMaxLine is the last line the quick start's code may end on.
const quickStartMaxLine = 80

// TestReadmeLength keeps README.md at most readmeMaxLines lines, as wc -l
// counts them.
func TestReadmeLength(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move detail to docs/", n, readmeMaxLines)
	}
}

// TestReadmeQuickStart builds the README's quick start, the first ```go
// block, as a module of its own that requires this one (replaced by the
// working tree), the way a user who pastes it into main.go would.
func TestReadmeQuickStart(t *testing.T) {
	code, first, last, err := firstGoBlock("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if last > quickStartMaxLine {
		t.Errorf("the quick start runs from line %d to line %d of README.md: it must end by line %d",
			first, last, quickStartMaxLine)
	}
	if !strings.HasPrefix(strings.TrimSpace(code), "package main") {
		t.Errorf("the quick start (README.md line %d) is not a complete program: it does not start with package main", first)
	}

	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := fmt.Sprintf(`module quickstart

go 1.26.0

require github.com/go-zkrecipes/zkrecipes v0.0.0

replace github.com/go-zkrecipes/zkrecipes => %s
`, root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"go.mod":  []byte(gomod),
		"go.sum":  sum,
		"main.go": []byte(code),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// go test puts its own GOROOT/bin first on the test binary's PATH, so
	// this finds the go command that runs the test.
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	for _, args := range [][]string{
		{"build", "-o", os.DevNull, "./..."},
		{"vet", "./..."},
	} {
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s of README.md's quick start (lines %d-%d) failed: %v\n%s\n--- main.go:\n%s",
				strings.Join(args, " "), first, last, err, out, code)
		}
	}
}

// firstGoBlock returns the text of the first ```go fenced block of the
// Markdown file at path, and the line numbers of its opening and closing
// fences.
func firstGoBlock(path string) (code string, first, last int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, 0, err
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case first == 0:
			if strings.TrimSpace(line) == "```go" {
				first = n
			}
		case strings.TrimSpace(line) == "```":
			return b.String(), first, n, nil
		default:
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		return "", 0, 0, err
	}
	if first == 0 {
		return "", 0, 0, fmt.Errorf("%s has no ```go block", path)
	}
	return "", 0, 0, fmt.Errorf("%s: the ```go block from line %d is never closed", path, first)
}
