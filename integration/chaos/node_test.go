package chaos

import "testing"

// TestNodeWorkerOwns: a participant knows its nodes under NodeDir by name,
// whatever the naming (plain, protected, protected sequential), and never
// takes another's: p1's are not p10's.
func TestNodeWorkerOwns(t *testing.T) {
	p1 := &NodeWorker{Part: Part{Who: 1}}
	uuid := "9fa7d0b3-1c67-464b-b6ba-329d0a00125c"
	for name, want := range map[string]bool{
		"p1":                             true,
		"_c_" + uuid + "-p1":             true,
		"_c_" + uuid + "-p1-0000000012":  true,
		"p1-0000000003":                  true,
		"p10":                            false,
		"_c_" + uuid + "-p10":            false,
		"_c_" + uuid + "-p10-0000000012": false,
		"p2":                             false,
		"_c_" + uuid + "-p2":             false,
		"_c_":                            false,
		"":                               false,
	} {
		if got := p1.owns(name); got != want {
			t.Errorf("p1 owns %q: %v, want %v", name, got, want)
		}
	}
}
