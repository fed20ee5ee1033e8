package check

import (
	"errors"
	"testing"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
)

func TestClientPath(t *testing.T) {
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := ClientPath(nil, "/a", ""); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("nil client: %v", err)
	}
	var pe *client.PathError
	if err := ClientPath(c, "a", ""); !errors.As(err, &pe) {
		t.Errorf("relative path: %v", err)
	}
	if err := ClientPath(c, "/", "a lock needs a directory of its own"); !errors.As(err, &pe) || pe.Reason != "a lock needs a directory of its own" {
		t.Errorf("root refused: %v", err)
	}
	if err := ClientPath(c, "/", ""); err != nil {
		t.Errorf("root allowed: %v", err)
	}
	if err := ClientPath(c, "/a/b", "x"); err != nil {
		t.Errorf("good path: %v", err)
	}
}
