package fetch

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/claimtrace/claimtrace"
)

func TestForbidden(t *testing.T) {
	tests := []struct {
		ip      string
		blocked bool
	}{
		{"93.184.216.34", false},
		{"8.8.8.8", false},
		{"2606:4700:4700::1111", false},
		{"64:ff9b::5db8:d822", false}, // NAT64 of a public address
		{"2002:5db8:d822::1", false},  // 6to4 of a public address
		{"127.0.0.1", true},
		{"127.255.255.254", true},
		{"10.0.0.1", true},
		{"172.16.0.1", true},
		{"172.32.0.1", false},
		{"192.168.1.1", true},
		{"169.254.169.254", true},
		{"100.64.0.1", true},
		{"100.128.0.1", false},
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"224.0.0.251", true},
		{"239.255.255.250", true},
		{"240.0.0.1", true},
		{"255.255.255.255", true},
		{"192.0.2.10", true},
		{"198.18.0.1", true},
		{"::", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"::ffff:10.1.1.1", true},
		{"::ffff:8.8.8.8", false},
		{"::127.0.0.1", true},
		{"64:ff9b::127.0.0.1", true},
		{"64:ff9b::a00:1", true},
		{"64:ff9b:1::1", true},
		{"2002:7f00:1::", true},
		{"2002:a00:1::", true},
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", true}, // Teredo, client 127.0.0.1
		{"2001:db8::1", true},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"fec0::1", true},
		{"ff02::1", true},
		{"100::1", true},
		{"4000::1", true}, // outside 2000::/3
	}
	for _, tt := range tests {
		if got := forbidden(netip.MustParseAddr(tt.ip)) != ""; got != tt.blocked {
			t.Errorf("forbidden(%s) = %q, want blocked=%v", tt.ip, forbidden(netip.MustParseAddr(tt.ip)), tt.blocked)
		}
	}
}

func TestLegacyIPv4(t *testing.T) {
	tests := []struct {
		host string
		want string // "" for a DNS name
		err  error
	}{
		{"2130706433", "127.0.0.1", nil},
		{"0x7f000001", "127.0.0.1", nil},
		{"0x7F.1", "127.0.0.1", nil},
		{"017700000001", "127.0.0.1", nil},
		{"0177.0.0.1", "127.0.0.1", nil},
		{"127.1", "127.0.0.1", nil},
		{"127.0.1", "127.0.0.1", nil},
		{"10.0x10.1", "10.16.0.1", nil},
		{"0", "0.0.0.0", nil},
		{"0x", "0.0.0.0", nil},
		{"8.8.8.8", "8.8.8.8", nil},
		{"example.org", "", errNotIPv4},
		{"1.2.3.com", "", errNotIPv4},
		{"arxiv.org", "", errNotIPv4},
		{"256.1.1.1", "", claimtrace.ErrInvalid},
		{"1.2.3.256", "", claimtrace.ErrInvalid},
		{"4294967296", "", claimtrace.ErrInvalid},
		{"1.2.3.4.5", "", claimtrace.ErrInvalid},
		{"08.1.1.1", "", claimtrace.ErrInvalid}, // 8 is not an octal digit
		{"1..1", "", claimtrace.ErrInvalid},
	}
	for _, tt := range tests {
		got, err := legacyIPv4(tt.host)
		if !errors.Is(err, tt.err) {
			t.Errorf("legacyIPv4(%q) error = %v, want %v", tt.host, err, tt.err)
			continue
		}
		if tt.err == nil && got.String() != tt.want {
			t.Errorf("legacyIPv4(%q) = %s, want %s", tt.host, got, tt.want)
		}
	}
}

func TestPolicyAllowances(t *testing.T) {
	p := newPolicy([]string{"intranet.example", "10.8.0.0/16", "127.0.0.1", " ", "bad/prefix"}, false)
	tests := []struct {
		host, ip string
		ok       bool
	}{
		{"intranet.example", "10.1.1.1", true},
		{"INTRANET.example.", "192.168.0.1", true},
		{"other.example", "10.8.4.4", true},
		{"other.example", "10.9.4.4", false},
		{"other.example", "127.0.0.1", true},
		{"other.example", "::ffff:127.0.0.1", true},
		{"other.example", "127.0.0.2", false},
		{"other.example", "93.184.216.34", true},
	}
	for _, tt := range tests {
		err := p.check(tt.host, netip.MustParseAddr(tt.ip))
		if (err == nil) != tt.ok {
			t.Errorf("check(%s, %s) = %v, want ok=%v", tt.host, tt.ip, err, tt.ok)
		}
		if err != nil && !errors.Is(err, claimtrace.ErrBlocked) {
			t.Errorf("check(%s, %s) = %v, want ErrBlocked", tt.host, tt.ip, err)
		}
	}
	if err := newPolicy(nil, true).check("x", netip.MustParseAddr("127.0.0.1")); err != nil {
		t.Errorf("AllowPrivate policy refused loopback: %v", err)
	}
}

func FuzzHostAddr(f *testing.F) {
	for _, s := range []string{"2130706433", "0x7f.1", "017700000001", "127.1", "example.org", "::1", "fe80::1%eth0", "1.2.3.999", "0x", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		ip, err := hostAddr(host)
		if err != nil {
			if !errors.Is(err, errNotIPv4) && !errors.Is(err, claimtrace.ErrInvalid) {
				t.Fatalf("hostAddr(%q) error %v has no known cause", host, err)
			}
			return
		}
		if !ip.IsValid() {
			t.Fatalf("hostAddr(%q) returned an invalid address without error", host)
		}
		_ = forbidden(ip)
	})
}
