package groupit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// curatorGroup is testdata/curator/CuratorGroup.java on Curator's jars.
func curatorGroup(t *testing.T) itest.Java {
	return itest.Java{
		Source:    "testdata/curator/CuratorGroup.java",
		Class:     "CuratorGroup",
		Classpath: itest.Classpath(t, itest.CuratorJars...),
	}
}

// javaSees waits until the Java member's last printed member list is want.
func javaSees(t *testing.T, p *itest.JavaProc, want string) {
	t.Helper()
	itest.Eventually(t, 20*time.Second, "curator to print members="+want, func() bool {
		var last string
		for _, line := range strings.Split(p.Printed(), "\n") {
			if s, ok := strings.CutPrefix(line, "curator: members="); ok {
				last = s
			}
		}
		return last == want
	})
}

// TestGroupMemberCuratorInterop: a Go member and Curator 5.4's own
// GroupMember in one group see each other, data changes included; when the
// Go member leaves, Java sees it go, and when Java leaves, Go does.
func TestGroupMemberCuratorInterop(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	root := itest.Connect(t, shared, itest.Opts{})
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	java := curatorGroup(t).Start(t, ctx, "curator: ready", shared.ConnectString(), ns+"/g", "java-1", "from-java", ns+"/stop")
	t.Cleanup(func() {
		if t.Failed() {
			lctx, lcancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer lcancel()
			kids, _, err := root.Children(lctx, ns+"/g")
			t.Logf("the Curator member printed:\n%s\nthe group's nodes on the server: %v (%v)", java.Printed(), kids, err)
		}
	})
	gom := join(t, c, "/g", "go-1", "from-go")
	sees(t, gom, "go-1=from-go,java-1=from-java")
	javaSees(t, java, "go-1=from-go,java-1=from-java")

	require.NoError(t, gom.SetData(ctx, []byte("busy")))
	javaSees(t, java, "go-1=busy,java-1=from-java")

	require.NoError(t, gom.Close(ctx))
	javaSees(t, java, "java-1=from-java")

	again := join(t, c, "/g", "go-2", "back")
	sees(t, again, "go-2=back,java-1=from-java")
	javaSees(t, java, "go-2=back,java-1=from-java")
	_, err := root.Create(ctx, ns+"/stop", nil, 0)
	require.NoError(t, err)
	require.Contains(t, java.Output(t), "curator: done")
	sees(t, again, "go-2=back")
	require.Equal(t, "go-2=back", onServer(t, c, "/g"), "Java's node is gone with its member")
}
