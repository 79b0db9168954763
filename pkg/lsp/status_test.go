package lsp

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"go.lsp.dev/protocol"
)

const cronTab = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: c\nspec:\n  cronSpec: \"* * * * *\"\n  image: nginx\n"

// nextStatus waits for the next MethodStatus notification.
func (c *client) nextStatus() Status {
	c.t.Helper()
	select {
	case st := <-c.statuses:
		return st
	case <-time.After(30 * time.Second):
		c.t.Fatal("no status")
		return Status{}
	}
}

// TestStatusNotifications: a client that asks for the server's state gets
// "checking", then "ready" with the version answered as, or "error" with
// the reason the check could not run; a client that does not ask gets
// none.
func TestStatusNotifications(t *testing.T) {
	asks := map[string]any{"experimental": map[string]any{MethodStatus: true}}
	c := startClient(t, Options{})
	c.initializeWith(asks, map[string]any{"crds": []string{abs(t, crontabs)}})
	c.open("file:///tmp/a.yaml", cronTab)
	if st := c.nextStatus(); st.State != "checking" {
		t.Errorf("first status %+v, want checking", st)
	}
	want := Status{State: "ready", KubernetesVersion: kubeversion.OrNewest(nil).String()}
	if st := c.nextStatus(); st != want {
		t.Errorf("status after the check %+v, want %+v", st, want)
	}
	c.diagnostics("file:///tmp/a.yaml", 1)

	failing := startClient(t, Options{Setup: func(Settings) (*validate.Environment, error) {
		return nil, errors.New("the cluster cannot be asked")
	}})
	failing.initializeWith(asks, nil)
	failing.open("file:///tmp/a.yaml", cronTab)
	failing.nextStatus() // checking
	if st := failing.nextStatus(); st.State != "error" || st.Message != "the cluster cannot be asked" {
		t.Errorf("status when the environment cannot be made: %+v", st)
	}

	quiet := startClient(t, Options{})
	quiet.initialize(map[string]any{"crds": []string{abs(t, crontabs)}})
	quiet.open("file:///tmp/a.yaml", cronTab)
	quiet.diagnostics("file:///tmp/a.yaml", 1)
	select {
	case st := <-quiet.statuses:
		t.Errorf("a client that did not ask got %+v", st)
	default:
	}
}

// TestTypeAt: the type and field at a point, as explain and sample take
// them; null outside an object of a known CRD.
func TestTypeAt(t *testing.T) {
	c := startClient(t, Options{})
	c.initialize(map[string]any{"crds": []string{abs(t, crontabs)}})
	uri := "file:///tmp/b.yaml"
	c.open(uri, cronTab+"---\napiVersion: v9\nkind: Nothing\n")
	c.diagnostics(uri, 1) // the check has found the CRD
	for _, tc := range []struct {
		line, char uint32
		want       *TypeAt
	}{
		{5, 4, &TypeAt{APIVersion: "stable.example.com/v1", Kind: "CronTab", Resource: "crontabs.stable.example.com", Field: "spec.cronSpec"}},
		{4, 1, &TypeAt{APIVersion: "stable.example.com/v1", Kind: "CronTab", Resource: "crontabs.stable.example.com", Field: "spec"}},
		{1, 1, &TypeAt{APIVersion: "stable.example.com/v1", Kind: "CronTab", Resource: "crontabs.stable.example.com"}},
		{9, 1, nil},
	} {
		m := c.call(MethodTypeAt, protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(uri)},
			Position: protocol.Position{Line: tc.line, Character: tc.char}})
		if m.Error != nil {
			t.Fatalf("%d:%d: %s", tc.line, tc.char, m.Error.Message)
		}
		var got *TypeAt
		if err := json.Unmarshal(m.Result, &got); err != nil {
			t.Fatal(err)
		}
		if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("%d:%d: %+v, want %+v", tc.line, tc.char, got, tc.want)
		}
	}
}

// TestKubernetesVersionSetting: the setting is read from the client's
// settings, and taken back by an empty one.
func TestKubernetesVersionSetting(t *testing.T) {
	var s Settings
	if err := s.merge(map[string]any{"kubectl-crd": map[string]any{"kubernetesVersion": "1.34"}}); err != nil || s.KubernetesVersion != "1.34" {
		t.Fatalf("%+v, %v", s, err)
	}
	if err := s.merge(map[string]any{"kubernetesVersion": ""}); err != nil || s.KubernetesVersion != "" {
		t.Fatalf("%+v, %v", s, err)
	}
	if err := s.merge(map[string]any{"kubernetesVersion": 1.34}); err == nil {
		t.Error("a number for kubernetesVersion was taken")
	}
}
