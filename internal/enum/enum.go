// Package enum names the values of the recipes' small enumerations (event
// types, modes) from one list, instead of a switch per type.
package enum

import "fmt"

// Name returns the name of v, where names lists the names of first,
// first+1, ... in order; a value outside the list reads "typ(v)".
func Name[T ~int](v, first T, typ string, names ...string) string {
	if i := int(v - first); i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}
