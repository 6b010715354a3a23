package webhooks

import (
	"errors"
	"fmt"
	"net/netip"
)

// ErrForbiddenAddress is wrapped by every refusal of an address (ForbiddenAddressError).
var ErrForbiddenAddress = errors.New("webhooks: address not allowed for webhooks")

// ForbiddenAddressError says which address of which host was refused, and why.
type ForbiddenAddressError struct {
	Host   string     // the URL's host, a name or an address
	Addr   netip.Addr // the address refused (resolved from Host if a name)
	Reason string     // "loopback", "private", "link-local", ...
}

func (e *ForbiddenAddressError) Error() string {
	if e.Host == e.Addr.String() || !e.Addr.IsValid() {
		return fmt.Sprintf("webhooks: %s is a %s address, not allowed for webhooks", e.Host, e.Reason)
	}
	return fmt.Sprintf("webhooks: %s resolves to %s, a %s address, not allowed for webhooks", e.Host, e.Addr, e.Reason)
}

func (e *ForbiddenAddressError) Unwrap() error { return ErrForbiddenAddress }

// forbidden lists, beyond what netip's predicates say, the special-purpose ranges of the
// IANA IPv4 and IPv6 registries a webhook must not reach: not globally reachable, or
// translating to an IPv4 address that could be one of the others.
var forbidden = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (CGNAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignment"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // and 255.255.255.255, broadcast
	{netip.MustParsePrefix("::/96"), "IPv4-compatible"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignment (Teredo, ORCHID, ...)"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("5f00::/16"), "segment routing"},
}

// nat64 is the well-known NAT64 prefix: its addresses reach the IPv4 address in their last
// 32 bits, which is checked in its place.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// AddressReason says why a is not allowed as a webhook's destination, or "" if it is.
// Loopback is refused unless allowLoopback (tests, development). IPv4-mapped IPv6
// (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses are judged as their IPv4.
func AddressReason(a netip.Addr, allowLoopback bool) string {
	if !a.IsValid() {
		return "invalid"
	}
	a = a.WithZone("")
	if a.Is4In6() {
		a = a.Unmap()
	}
	if a.Is6() && nat64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte(b[12:]))
	}
	switch {
	case a.IsLoopback():
		if allowLoopback {
			return ""
		}
		return "loopback"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsPrivate(): // 10/8, 172.16/12, 192.168/16, fc00::/7
		return "private"
	case a.IsLinkLocalUnicast(): // 169.254/16 (cloud metadata: 169.254.169.254), fe80::/10
		return "link-local"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, f := range forbidden {
		if f.prefix.Contains(a) {
			return f.reason
		}
	}
	if !a.IsGlobalUnicast() {
		return "not global unicast"
	}
	return ""
}
