package cluster

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// startEtcd starts a single-member etcd in dir, listening on loopback.
//
// etcd binds its own ports, so a port found free may be taken by another
// process (test packages run side by side) before etcd binds it; then it
// tries again on other ports, in a fresh data directory.
func startEtcd(dir string) (*embed.Etcd, string, error) {
	const attempts = 5
	var err error
	for i := range attempts {
		var e *embed.Etcd
		var clientURL string
		var urls []url.URL
		if urls, err = freeURLs(2); err != nil {
			break
		}
		e, clientURL, err = startEtcdOnce(filepath.Join(dir, fmt.Sprintf("etcd-%d", i)), urls[0], urls[1])
		if err == nil {
			return e, clientURL, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			break
		}
	}
	return nil, "", err
}

func startEtcdOnce(dir string, clientURL, peerURL url.URL) (*embed.Etcd, string, error) {
	cfg := embed.NewConfig()
	cfg.Name = "kubectl-crd-test"
	cfg.Dir = dir
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.UnsafeNoFsync = true // a throwaway store: speed over durability

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("starting etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, "", fmt.Errorf("etcd did not become ready within a minute")
	}
	return e, clientURL.String(), nil
}

// freeURLs returns n distinct loopback URLs whose ports were free a moment
// ago: all n are held open together, so no two are the same.
func freeURLs(n int) ([]url.URL, error) {
	urls := make([]url.URL, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		urls = append(urls, url.URL{Scheme: "http", Host: l.Addr().String()})
	}
	return urls, nil
}
