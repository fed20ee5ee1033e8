// Command checkdocs fails when an exported identifier of the packages under
// the given directories has no doc comment: functions, methods of exported
// types, types, and constants and variables (a comment on their group
// counts). Test files are skipped. Each offender is printed as
// file:line: name.
//
//	go run ./scripts/checkdocs client retry internal recipes
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: checkdocs dir...")
		os.Exit(2)
	}
	fset := token.NewFileSet()
	var missing []string
	files := 0
	for _, root := range os.Args[1:] {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			files++
			missing = append(missing, undocumented(fset, f)...)
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "checkdocs:", err)
			os.Exit(2)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "checkdocs: FAIL: %d exported identifiers without a doc comment:\n", len(missing))
		for _, m := range missing {
			fmt.Fprintln(os.Stderr, "  "+m)
		}
		os.Exit(1)
	}
	fmt.Printf("checkdocs: every exported identifier in %d files has a doc comment\n", files)
}

// undocumented lists the exported declarations of f without a doc comment.
func undocumented(fset *token.FileSet, f *ast.File) []string {
	var out []string
	report := func(pos token.Pos, name string) {
		out = append(out, fmt.Sprintf("%s: %s", fset.Position(pos), name))
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || documented(d.Doc) {
				continue
			}
			if d.Recv == nil {
				report(d.Pos(), d.Name.Name)
			} else if recv := receiverType(d.Recv); ast.IsExported(recv) {
				report(d.Pos(), recv+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					if !documented(s.Doc) && !documented(d.Doc) {
						report(s.Pos(), s.Name.Name)
					}
					out = append(out, undocumentedMembers(fset, s)...)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && !documented(s.Doc) && !documented(s.Comment) && !documented(d.Doc) {
							report(n.Pos(), n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// undocumentedMembers lists the exported fields of an exported struct type
// and the methods of an exported interface type that have neither a doc
// comment nor a comment on their line.
func undocumentedMembers(fset *token.FileSet, s *ast.TypeSpec) []string {
	var fields *ast.FieldList
	switch t := s.Type.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return nil
	}
	var out []string
	for _, f := range fields.List {
		if documented(f.Doc) || documented(f.Comment) {
			continue
		}
		for _, n := range f.Names {
			if n.IsExported() {
				out = append(out, fmt.Sprintf("%s: %s.%s", fset.Position(n.Pos()), s.Name.Name, n.Name))
			}
		}
	}
	return out
}

// documented reports whether g has text beyond directives such as
// //go:noinline, which are not documentation.
func documented(g *ast.CommentGroup) bool { return g != nil && g.Text() != "" }

// receiverType is the name of a method's receiver type, without pointer
// or type parameters.
func receiverType(recv *ast.FieldList) string {
	if recv == nil || len(recv.List) == 0 {
		return ""
	}
	t := recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
