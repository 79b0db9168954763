package cluster

import (
	"errors"
	"net"
	"net/url"
	"syscall"
	"testing"
)

// A port taken between finding it free and etcd binding it must be told
// apart from other failures, for startEtcd to try other ports.
func TestEtcdOnATakenPortSaysAddressInUse(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	free, err := freeURLs(1)
	if err != nil {
		t.Fatal(err)
	}
	busy := url.URL{Scheme: "http", Host: taken.Addr().String()}
	for name, urls := range map[string][2]url.URL{"client": {busy, free[0]}, "peer": {free[0], busy}} {
		e, _, err := startEtcdOnce(t.TempDir(), urls[0], urls[1])
		if err == nil {
			e.Close()
			t.Fatalf("%s port taken: etcd started", name)
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			t.Errorf("%s port taken: %v, not EADDRINUSE", name, err)
		}
	}
}

func TestFreeURLsAreDistinct(t *testing.T) {
	urls, err := freeURLs(50)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, u := range urls {
		if seen[u.Host] {
			t.Fatalf("%s twice", u.Host)
		}
		seen[u.Host] = true
	}
}
