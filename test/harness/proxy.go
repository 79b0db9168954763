package harness

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
)

// Proxy is a forward proxy on loopback, HTTP CONNECT or SOCKS5, that sends
// every connection, whatever host it names, to one address (the test
// cluster's), and counts the connections by the target the client named:
// so a kubeconfig may name a host no resolver knows, and a request that
// arrives proves it came through the proxy.
type Proxy struct {
	URL string // http://127.0.0.1:PORT or socks5://127.0.0.1:PORT

	to       string
	listener net.Listener
	mu       sync.Mutex
	targets  map[string]int
	refuse   bool // CONNECT answered 403
	stall    bool // CONNECT never answered
	conns    []net.Conn
}

// Targets returns how many connections went to each target.
func (p *Proxy) Targets() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for k, v := range p.targets {
		out[k] = v
	}
	return out
}

// Connections is the number of connections made through the proxy.
func (p *Proxy) Connections() int {
	n := 0
	for _, v := range p.Targets() {
		n += v
	}
	return n
}

// Close stops the proxy and ends its connections.
func (p *Proxy) Close() {
	_ = p.listener.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
}

func (p *Proxy) count(target string) {
	p.mu.Lock()
	if p.targets == nil {
		p.targets = map[string]int{}
	}
	p.targets[target]++
	p.mu.Unlock()
}

func (p *Proxy) keep(c net.Conn) {
	p.mu.Lock()
	p.conns = append(p.conns, c)
	p.mu.Unlock()
}

// ConnectProxyOptions change how an HTTP CONNECT proxy answers.
type ConnectProxyOptions struct {
	Refuse bool // answer every CONNECT with 403 Forbidden
	Stall  bool // read the CONNECT and never answer
}

// StartConnectProxy starts an HTTP CONNECT proxy to the address to.
func StartConnectProxy(to string, opts ConnectProxyOptions) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{URL: "http://" + l.Addr().String(), to: to, listener: l, refuse: opts.Refuse, stall: opts.Stall}
	go p.serve(p.connect)
	return p, nil
}

// StartSOCKS5Proxy starts a SOCKS5 proxy (RFC 1928, no authentication,
// CONNECT) to the address to.
func StartSOCKS5Proxy(to string) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{URL: "socks5://" + l.Addr().String(), to: to, listener: l}
	go p.serve(p.socks5)
	return p, nil
}

func (p *Proxy) serve(handle func(net.Conn)) {
	for {
		c, err := p.listener.Accept()
		if err != nil {
			return
		}
		p.keep(c)
		go handle(c)
	}
}

// connect answers one client of the HTTP proxy: a CONNECT request, then
// bytes both ways.
func (p *Proxy) connect(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	if req.Method != http.MethodConnect {
		fmt.Fprintf(c, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
		return
	}
	switch {
	case p.stall:
		_, _ = io.Copy(io.Discard, br) // until the client gives up
		return
	case p.refuse:
		fmt.Fprintf(c, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
		return
	}
	p.count(req.Host)
	upstream, err := net.Dial("tcp", p.to)
	if err != nil {
		fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	p.keep(upstream)
	fmt.Fprintf(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	pipe(c, br, upstream)
}

// socks5 answers one client of the SOCKS5 proxy.
func (p *Proxy) socks5(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	// Greeting: version 5, the methods the client offers.
	head := make([]byte, 2)
	if _, err := io.ReadFull(br, head); err != nil || head[0] != 5 {
		return
	}
	if _, err := io.ReadFull(br, make([]byte, head[1])); err != nil {
		return
	}
	if _, err := c.Write([]byte{5, 0}); err != nil { // no authentication
		return
	}
	// Request: version, command, reserved, address type, address, port.
	req := make([]byte, 4)
	if _, err := io.ReadFull(br, req); err != nil || req[0] != 5 {
		return
	}
	host, err := socksAddress(br, req[3])
	if err != nil {
		return
	}
	port := make([]byte, 2)
	if _, err := io.ReadFull(br, port); err != nil {
		return
	}
	if req[1] != 1 { // only CONNECT
		_, _ = c.Write([]byte{5, 7, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	p.count(net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(port)))))
	upstream, err := net.Dial("tcp", p.to)
	if err != nil {
		_, _ = c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	p.keep(upstream)
	if _, err := c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0}); err != nil {
		return
	}
	pipe(c, br, upstream)
}

// socksAddress reads a SOCKS5 address of type kind.
func socksAddress(r io.Reader, kind byte) (string, error) {
	switch kind {
	case 1, 4: // IPv4, IPv6
		ip := make([]byte, map[byte]int{1: 4, 4: 16}[kind])
		if _, err := io.ReadFull(r, ip); err != nil {
			return "", err
		}
		return net.IP(ip).String(), nil
	case 3: // a name
		n := make([]byte, 1)
		if _, err := io.ReadFull(r, n); err != nil {
			return "", err
		}
		name := make([]byte, n[0])
		if _, err := io.ReadFull(r, name); err != nil {
			return "", err
		}
		return string(name), nil
	}
	return "", errors.New("unknown address type")
}

// pipe copies both ways until either side ends; client's bytes already
// read sit in br.
func pipe(client net.Conn, br *bufio.Reader, upstream net.Conn) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(upstream, br); _ = upstream.Close(); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, upstream); _ = client.Close(); done <- struct{}{} }()
	<-done
}
