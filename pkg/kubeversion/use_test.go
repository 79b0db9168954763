package kubeversion

import "testing"

// TestUseSetsOncePerVersion: asked again for the version the registry
// has, Use leaves the registry alone (what is set there stays, as a
// check under way would read it); asked for another, it sets it.
func TestUseSetsOncePerVersion(t *testing.T) {
	oldest, newest := Range()
	t.Cleanup(func() { _ = Use(newest, nil, false) })
	if err := Use(newest, nil, false); err != nil {
		t.Fatal(err)
	}
	// Under Use's feet: were it to set the registry again, this would go.
	effective().SetEmulationVersion(oldest)
	if err := Use(newest, nil, false); err != nil || !Current().EqualTo(oldest) {
		t.Errorf("the same version again: the registry was set again (%v, %v)", Current(), err)
	}
	effective().SetEmulationVersion(newest)
	if err := Use(oldest, nil, false); err != nil || !Current().EqualTo(oldest) {
		t.Errorf("another version: %v, %v", Current(), err)
	}
}
