package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// checkDir checks the package in dir and returns its offences.
func checkDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	c := &checker{fset: fset}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		c.file(f)
	}
	if c.files == 0 {
		return nil, fmt.Errorf("%s: no Go files", dir)
	}
	if !c.hasOption {
		c.offences = append(c.offences, fmt.Sprintf("%s: no `type Option func(*options) error`", dir))
	}
	return c.offences, nil
}

type checker struct {
	fset      *token.FileSet
	files     int
	hasOption bool
	offences  []string
	imports   map[string]string // this file's import names -> paths
}

func (c *checker) report(pos token.Pos, format string, args ...any) {
	c.offences = append(c.offences, fmt.Sprintf("%s: %s", c.fset.Position(pos), fmt.Sprintf(format, args...)))
}

func (c *checker) file(f *ast.File) {
	c.files++
	c.imports = map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndexByte(p, '/')+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		c.imports[name] = p
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					c.typeSpec(s)
				case *ast.ValueSpec:
					c.valueSpec(s)
				}
			}
		case *ast.FuncDecl:
			c.funcDecl(d)
		}
	}
}

// typeSpec checks option types and aliases.
func (c *checker) typeSpec(s *ast.TypeSpec) {
	name := s.Name.Name
	if !ast.IsExported(name) {
		return
	}
	if s.Assign.IsValid() {
		if sel, ok := s.Type.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && strings.Contains(c.imports[x.Name], "/internal/") {
				c.report(s.Pos(), "%s is an exported alias of internal type %s.%s", name, x.Name, sel.Sel.Name)
			}
		}
	}
	if name != "Option" && !strings.HasSuffix(name, "Option") {
		return
	}
	ft, ok := s.Type.(*ast.FuncType)
	shape := ok && !s.Assign.IsValid() && ft.Params != nil && len(ft.Params.List) == 1 &&
		ft.Results != nil && len(ft.Results.List) == 1 && isIdent(ft.Results.List[0].Type, "error")
	if shape {
		star, isStar := ft.Params.List[0].Type.(*ast.StarExpr)
		id, isID := ast.Expr(nil), false
		if isStar {
			id, isID = star.X, true
		}
		param, _ := id.(*ast.Ident)
		shape = isID && param != nil && !ast.IsExported(param.Name)
		if shape && name == "Option" && param.Name == "options" {
			c.hasOption = true
		}
	}
	if !shape {
		c.report(s.Pos(), "%s is not func(*<unexported options>) error", name)
	}
}

// valueSpec refuses re-exported variables: Exported = otherpkg.Name.
func (c *checker) valueSpec(s *ast.ValueSpec) {
	for i, n := range s.Names {
		if !n.IsExported() || i >= len(s.Values) {
			continue
		}
		if sel, ok := s.Values[i].(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && c.imports[x.Name] != "" {
				c.report(n.Pos(), "%s re-exports %s.%s: refer to it where it is declared", n.Name, x.Name, sel.Sel.Name)
			}
		}
	}
}

// funcDecl checks names and signatures.
func (c *checker) funcDecl(d *ast.FuncDecl) {
	name := d.Name.Name
	if !ast.IsExported(name) {
		return
	}
	if d.Recv != nil && !exportedRecv(d.Recv) {
		return
	}
	if name == "WithLogger" && d.Recv == nil {
		c.report(d.Pos(), "WithLogger: recipes log through the client's logger")
	}
	params := flatten(d.Type.Params)
	results := flatten(d.Type.Results)
	for i, p := range params {
		if c.isContext(p) && i != 0 {
			c.report(d.Pos(), "%s takes a context.Context but not first", name)
		}
	}
	if d.Recv == nil {
		return
	}
	switch name {
	case "Start":
		if len(params) != 1 || !c.isContext(params[0]) || len(results) != 1 || !isIdent(results[0], "error") {
			c.report(d.Pos(), "Start is not Start(ctx context.Context) error")
		}
	case "Close":
		ok := len(results) == 1 && isIdent(results[0], "error") &&
			(len(params) == 0 || len(params) == 1 && c.isContext(params[0]))
		if !ok {
			c.report(d.Pos(), "Close is neither Close() error nor Close(ctx context.Context) error")
		}
	case "Events":
		ok := len(params) == 0 && len(results) == 2
		if ok {
			ch, isChan := results[0].(*ast.ChanType)
			fn, isFunc := results[1].(*ast.FuncType)
			ok = isChan && ch.Dir == ast.RECV && isFunc && len(flatten(fn.Params)) == 0 && len(flatten(fn.Results)) == 0
		}
		if !ok {
			c.report(d.Pos(), "Events is not Events() (<-chan T, func())")
		}
	}
}

func (c *checker) isContext(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && c.imports[x.Name] == "context" && sel.Sel.Name == "Context"
}

// flatten lists one type per parameter or result (a, b int is two ints).
func flatten(fl *ast.FieldList) []ast.Expr {
	if fl == nil {
		return nil
	}
	var out []ast.Expr
	for _, f := range fl.List {
		n := len(f.Names)
		if n == 0 {
			n = 1
		}
		for range n {
			out = append(out, f.Type)
		}
	}
	return out
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(recv *ast.FieldList) bool {
	if len(recv.List) == 0 {
		return false
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
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}
