package resolvers

import "testing"

func TestFormatUnitsIsExact(t *testing.T) {
	for _, c := range []struct {
		amount   string
		decimals int
		want     string
	}{
		{"1500000000000000000", 18, "1.5"}, {"0", 18, "0"}, {"7", 3, "0.007"}, {"1000", 3, "1"},
		{"123", 0, "123"}, {"1000000000000000000000000000001", 18, "1000000000000.000000000000000001"},
	} {
		if got, err := FormatUnits(c.amount, c.decimals); err != nil || got != c.want {
			t.Errorf("FormatUnits(%s, %d) = %q, %v; want %q", c.amount, c.decimals, got, err, c.want)
		}
	}
	for _, bad := range []string{"x", "-1", "", "1.5"} {
		if _, err := FormatUnits(bad, 18); err == nil {
			t.Errorf("FormatUnits(%q) accepted", bad)
		}
	}
}
