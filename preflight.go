// Checks each command makes before it starts anything (a PostgreSQL cluster, a server, an
// indexer): ports free, directories writable, URLs that parse, a node that answers. Each
// failure is one error that says what is wrong and how to fix it, so that a command that
// cannot run stops at once with one line instead of starting PostgreSQL and failing
// later in a burst of unrelated messages.

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/internal/stackstart"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// bindEarly binds the public and the admin address of a serving command before anything
// else starts, and keeps the listeners for serveAPI. An address that is taken or invalid
// fails with the flag that sets it.
func (f *serverFlags) bindEarly() error {
	f.bound = map[string]net.Listener{}
	for _, a := range []struct{ flag, env, addr string }{
		{"--addr", "STARKGRAPH_ADDR", f.addr},
		{"--admin-addr", "STARKGRAPH_ADMIN_ADDR", f.adminAddr},
	} {
		if a.addr == "" {
			continue
		}
		ln, err := listenChecked(a.flag, a.env, a.addr)
		if err != nil {
			f.closeBound()
			return err
		}
		f.bound[a.addr] = ln
	}
	return nil
}

// closeBound closes the listeners bindEarly made that serveAPI has not taken.
func (f *serverFlags) closeBound() {
	for addr, ln := range f.bound {
		ln.Close()
		delete(f.bound, addr)
	}
}

// listen is the listener bindEarly made for addr, or a new one.
func (f *serverFlags) listen(addr string) (net.Listener, error) {
	if ln, ok := f.bound[addr]; ok {
		delete(f.bound, addr)
		return ln, nil
	}
	return net.Listen("tcp", addr)
}

// listenChecked listens on addr, set by flag (or env); its error says which flag to change.
func listenChecked(flag, env, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	also := ""
	if env != "" {
		also = " (or " + env + ")"
	}
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("%s %s: the address is already in use (another starkgraph running?); stop that process or choose another address with %s%s", flag, addr, flag, also)
	case errors.Is(err, syscall.EACCES):
		return nil, fmt.Errorf("%s %s: not allowed to listen there (ports below 1024 need privileges); choose another address with %s%s", flag, addr, flag, also)
	default:
		return nil, fmt.Errorf("%s %q: cannot listen (%v); give a host:port such as 127.0.0.1:9090 with %s%s", flag, addr, err, flag, also)
	}
}

// checkPortFree fails when addr cannot be listened on now, for commands whose server
// binds it later itself.
func checkPortFree(flag, addr string) error {
	ln, err := listenChecked(flag, "", addr)
	if err != nil {
		return err
	}
	return ln.Close()
}

// checkWritableDir makes dir if it is missing and checks a file can be written in it.
func checkWritableDir(flag, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s %s: cannot create the directory (%v); choose a directory you can write with %s", flag, dir, unwrapPath(err), flag)
	}
	probe, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("%s %s: the directory is not writable (%v); fix its permissions or choose another with %s", flag, dir, unwrapPath(err), flag)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// unwrapPath drops the path a PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkHTTPURL checks that raw is an absolute http(s) URL.
func checkHTTPURL(what, raw string) error {
	u, err := neturl.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %q is not an http(s) URL; give one such as http://localhost:9545/rpc/v0_8", what, raw)
	}
	return nil
}

// checkDatabaseURL checks the form of a PostgreSQL connection string named by what
// (an environment variable): a postgres:// URL, or lib/pq's key=value form.
func checkDatabaseURL(what, raw string) error {
	if raw == "" {
		return nil
	}
	if !strings.Contains(raw, "://") {
		if strings.Contains(raw, "=") {
			return nil // key=value pairs; lib/pq reports what it cannot use
		}
		return fmt.Errorf("%s is neither a postgres:// URL nor key=value pairs; set it like postgres://user:pass@localhost:5432/starkgraph?sslmode=disable", what)
	}
	u, err := neturl.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return fmt.Errorf("%s does not parse as a postgres:// URL; set it like postgres://user:pass@localhost:5432/starkgraph?sslmode=disable", what)
	}
	return nil
}

// checkRedisURL checks REDIS_URL's form.
func checkRedisURL(raw string) error {
	if raw == "" {
		return nil
	}
	if _, err := redis.ParseURL(raw); err != nil {
		return fmt.Errorf("REDIS_URL does not parse (%v); set it like redis://localhost:6379/0, or unset it to count rate limits in memory", err)
	}
	return nil
}

// checkServerSettings checks what serve and dev read besides their addresses.
func checkServerSettings(sf *serverFlags, databaseURL string) error {
	if _, err := auth.ParseFailMode(sf.limiterFail); err != nil {
		return fmt.Errorf("--limiter-fail %q: give local, open or closed", sf.limiterFail)
	}
	if sf.stackKiB < 0 || sf.stackKiB > stackstart.MaxKiB {
		return fmt.Errorf("--goroutine-stack-kib %d: give 0 (the runtime's choice) to %d", sf.stackKiB, stackstart.MaxKiB)
	}
	if err := checkDatabaseURL("DATABASE_URL", databaseURL); err != nil {
		return err
	}
	if err := checkDatabaseURL("DATABASE_READ_URL", sf.readURL); err != nil {
		return err
	}
	return checkRedisURL(sf.redisURL)
}

// checkNode checks, once, that url is an http(s) URL whose server answers starknet_chainId
// (the project's JSON-RPC client) within 10 seconds: `dev --rpc`'s check before it starts
// PostgreSQL. (`index` does not check: its indexer waits for the node, retrying.)
func checkNode(ctx context.Context, flag, url string) error {
	if err := checkHTTPURL(flag, url); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := rpc.NewClient(url).ChainID(ctx)
	if err == nil {
		return nil
	}
	var httpErr *rpc.HTTPError
	var rpcErr *rpc.RPCError
	switch {
	case errors.As(err, &httpErr):
		return fmt.Errorf("%s %s: the node answered HTTP %d to starknet_chainId; is this a Starknet JSON-RPC URL (for example http://host:9545/rpc/v0_8)?", flag, url, httpErr.StatusCode)
	case errors.As(err, &rpcErr):
		return fmt.Errorf("%s %s: the node answered starknet_chainId with an error (%v); is this a Starknet JSON-RPC URL (for example http://host:9545/rpc/v0_8)?", flag, url, rpcErr)
	case rpc.IsTransient(err) || ctx.Err() != nil:
		var urlErr *neturl.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return fmt.Errorf("%s %s: the node does not answer (%v); start it or correct the URL", flag, url, err)
	default:
		return fmt.Errorf("%s %s: %v; is this a Starknet JSON-RPC URL (for example http://host:9545/rpc/v0_8)?", flag, url, err)
	}
}

// checkDataDir checks the directory dev or bench keeps its private cluster in, when no
// databaseURL (DATABASE_URL) names another database.
func checkDataDir(dir, databaseURL string) error {
	if databaseURL != "" {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("--data-dir %s: %v", dir, err)
	}
	return checkWritableDir("--data-dir", abs)
}
