package client

import (
	"strings"
	"unicode/utf8"
)

// ValidatePath reports whether p is a path ZooKeeper accepts and this package
// allows. It returns a *PathError (wrapping zkrecipes.ErrInvalidPath) for: an empty path,
// no leading '/', a trailing '/' (other than the root itself), an empty segment
// ("//"), "." or ".." segments, invalid UTF-8, NUL, control or other
// characters ZooKeeper forbids, and anything under the reserved /zookeeper tree.
func ValidatePath(p string) error {
	if err := validateSyntax(p); err != nil {
		return err
	}
	if p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/") {
		return &PathError{Path: p, Reason: "the /zookeeper tree is reserved"}
	}
	return nil
}

// validateSyntax checks everything but the reserved tree; the namespace join
// uses it so that a namespace may not smuggle a path under /zookeeper either.
func validateSyntax(p string) error {
	switch {
	case p == "":
		return &PathError{Path: p, Reason: "empty"}
	case p[0] != '/':
		return &PathError{Path: p, Reason: "must start with '/'"}
	case p == "/":
		return nil
	case p[len(p)-1] == '/':
		return &PathError{Path: p, Reason: "must not end with '/'"}
	case !utf8.ValidString(p):
		return &PathError{Path: p, Reason: "not valid UTF-8"}
	}
	for rest := p[1:]; ; {
		seg, tail, more := strings.Cut(rest, "/")
		switch seg {
		case "":
			return &PathError{Path: p, Reason: "empty segment ('//')"}
		case ".", "..":
			return &PathError{Path: p, Reason: "relative segment '" + seg + "'"}
		}
		if !more {
			break
		}
		rest = tail
	}
	for i := 0; i < len(p); i++ {
		if b := p[i]; b >= utf8.RuneSelf || b < 0x20 || b == 0x7f {
			return checkRunes(p[i:], p) // the rare path: decode runes
		}
	}
	return nil
}

// checkRunes is validateSyntax's check of the characters of rest, the part
// of p from its first byte that is not printable ASCII.
func checkRunes(rest, p string) error {
	for _, r := range rest {
		if forbiddenRune(r) {
			return &PathError{Path: p, Reason: "forbidden character " + quoteRune(r)}
		}
	}
	return nil
}

// forbiddenRune mirrors the characters ZooKeeper's own path check rejects:
// NUL and the C0/C1 control ranges, DEL, surrogates, the private-use block
// U+E000..U+F8FF and the specials U+FFF0..U+FFFF.
func forbiddenRune(r rune) bool {
	switch {
	case r == 0:
		return true
	case r > 0 && r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0xd800 && r <= 0xf8ff:
		return true
	case r >= 0xfff0 && r <= 0xffff:
		return true
	case r == utf8.RuneError:
		return true
	}
	return false
}

func quoteRune(r rune) string {
	const hex = "0123456789ABCDEF"
	b := []byte("U+0000")
	for i := 5; i >= 2; i-- {
		b[i] = hex[r&0xf]
		r >>= 4
	}
	return string(b)
}

// normalizeNamespace turns "app", "/app" or "app/sub" into "/app/sub"; an
// empty namespace means the tree's root and yields "".
func normalizeNamespace(ns string) (string, error) {
	if ns == "" {
		return "", nil
	}
	if ns[0] != '/' {
		ns = "/" + ns
	}
	if ns == "/" {
		return "", nil
	}
	if err := ValidatePath(ns); err != nil {
		return "", err
	}
	return ns, nil
}

// parentOf returns the parent of an absolute, valid path ("/" for a top-level node).
func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// joinPath appends a child name to an absolute parent path.
func joinPath(parent, child string) string {
	if parent == "/" {
		return "/" + child
	}
	return parent + "/" + child
}
