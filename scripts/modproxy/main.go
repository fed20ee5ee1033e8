// Command modproxy packs the module in a directory (the repository's root
// module, as its working tree has it) into a file-based Go module proxy at
// one version, so that a module that requires that version can be built as
// a user's module would be: with GOPROXY=file://OUT and no workspace or
// replace. It writes OUT/MODULE/@v/list, VERSION.info, VERSION.mod and
// VERSION.zip. The zip holds what the go command would put in the
// module's zip: every regular file under the directory but the
// subdirectories that are modules of their own (a go.mod of their own),
// version-control directories, and go.work files.
//
//	go run ./scripts/modproxy -dir . -version v0.1.0 -out /tmp/proxy
package main

import (
	"archive/zip"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

func main() {
	dir := flag.String("dir", ".", "the module's directory (it holds its go.mod)")
	version := flag.String("version", "", "the version to publish it at (vMAJOR.MINOR.PATCH)")
	out := flag.String("out", "", "the proxy's directory")
	flag.Parse()
	if *version == "" || *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: modproxy [-dir DIR] -version VERSION -out PROXYDIR")
		os.Exit(2)
	}
	mod, err := pack(*dir, *version, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
	fmt.Printf("modproxy: %s@%s from %s in file://%s\n", mod, *version, *dir, *out)
}

// semver is the form of a release version this packs (no pre-release or
// build suffix needed here).
var semver = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

// pack writes the proxy's files for the module in dir at version and
// returns the module's path.
func pack(dir, version, out string) (string, error) {
	if !semver.MatchString(version) {
		return "", fmt.Errorf("version %q: not vMAJOR.MINOR.PATCH", version)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	mod := modulePath(gomod)
	if mod == "" {
		return "", fmt.Errorf("%s/go.mod names no module", dir)
	}
	files, err := moduleFiles(dir)
	if err != nil {
		return "", err
	}
	at := filepath.Join(out, filepath.FromSlash(escape(mod)), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return "", err
	}
	info := fmt.Sprintf("{\"Version\":%q,\"Time\":%q}\n", version, time.Now().UTC().Format(time.RFC3339))
	for name, data := range map[string][]byte{"list": []byte(version + "\n"), version + ".info": []byte(info), version + ".mod": gomod} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return "", err
		}
	}
	return mod, writeZip(filepath.Join(at, version+".zip"), dir, mod+"@"+version, files)
}

// modulePath is the path of the module statement of a go.mod file.
func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// escape is the module path as the proxy protocol spells it: each upper
// case letter as "!" and its lower case.
func escape(mod string) string {
	var b strings.Builder
	for _, r := range mod {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// moduleFiles lists the module's files under dir, slash-separated and
// relative to it, in walk order.
func moduleFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == ".":
				return nil
			case d.Name() == ".git" || d.Name() == ".hg" || d.Name() == ".svn" || d.Name() == ".bzr":
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		}
		if !d.Type().IsRegular() || path.Base(rel) == "go.work" || path.Base(rel) == "go.work.sum" {
			return nil
		}
		files = append(files, rel)
		return nil
	})
	return files, err
}

// writeZip writes the module zip: each file under prefix/.
func writeZip(name, dir, prefix string, files []string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	for _, rel := range files {
		if err := addFile(zw, filepath.Join(dir, filepath.FromSlash(rel)), prefix+"/"+rel); err != nil {
			_ = f.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func addFile(zw *zip.Writer, src, name string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
	if err != nil {
		return err
	}
	_, err = io.Copy(w, in)
	return err
}
