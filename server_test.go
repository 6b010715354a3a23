package main

import "testing"

// The start-up log names each server's URL as a client reaches it, and says "off" for the
// admin server when --admin-addr is empty instead of a URL without a host.
func TestURLOfNamesWhatClientsReach(t *testing.T) {
	for _, c := range []struct{ addr, path, want string }{
		{":8080", "/graphql", "http://localhost:8080/graphql"},
		{"127.0.0.1:9090", "/metrics", "http://127.0.0.1:9090/metrics"},
		{"", "/metrics", "off"},
	} {
		if got := urlOf(c.addr, c.path); got != c.want {
			t.Errorf("urlOf(%q, %q) = %q, want %q", c.addr, c.path, got, c.want)
		}
	}
}
