package etag

import "testing"

func TestMatches(t *testing.T) {
	tag := Of([]byte(`{"a":1}`))
	if tag == Of([]byte(`{"a":2}`)) {
		t.Fatal("two bodies, one validator")
	}
	for header, want := range map[string]bool{
		"": false, tag: true, "*": true, `"other", ` + tag: true, tag[2:]: true, `W/"other"`: false,
	} {
		if got := Matches(header, tag); got != want {
			t.Errorf("Matches(%q, %q) = %v, want %v", header, tag, got, want)
		}
	}
}
