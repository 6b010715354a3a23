package rest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// A small notation for the response shapes of the reference, close to the TypeScript that
// voyager-beta.md renders (it is openapi-typescript's output put in tables):
//
//	string number boolean null unknown object   JSON types (object: any object)
//	"Mint" 4                                   a literal value
//	A | B                                      either
//	T[]                                        an array of T; T[]+ an array of at least one T
//	{a: T, b?: T, c??: T}                      an object with exactly these keys;
//	                                           b?: the reference marks it optional ("o"),
//	                                           which it says we still send, null when
//	                                           unknown; c??: a key the reference shows
//	                                           absent when unknown (so it may be missing)
//	{a: T, ...}                                an object with these keys and maybe others
//	{[key: string]: T}                         an object of any keys, every value a T
//	Name                                       a shape of refShapes.named
//
// Numbers are any JSON number: the reference cannot tell integers from other numbers.

type shapeKind int

const (
	kString shapeKind = iota
	kNumber
	kBoolean
	kNull
	kUnknown
	kAnyObject
	kLiteral
	kUnion
	kArray
	kObject
	kMap
	kNamed
)

type shape struct {
	kind     shapeKind
	literal  any      // kLiteral: a string or a float64
	alts     []*shape // kUnion
	elem     *shape   // kArray, kMap
	nonEmpty bool     // kArray: T[]+
	fields   []field  // kObject
	open     bool     // kObject: `...`
	name     string   // kNamed
}

type field struct {
	name     string
	optional bool // `?`: present, maybe null
	absentOK bool // `??`: maybe missing
	shape    *shape
}

// shapeParser reads the notation.
type shapeParser struct {
	src string
	pos int
}

func parseShape(src string) (*shape, error) {
	p := &shapeParser{src: src}
	s, err := p.union()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.src) {
		return nil, p.fail("unexpected %q", p.src[p.pos:])
	}
	return s, nil
}

func (p *shapeParser) fail(format string, args ...any) error {
	return fmt.Errorf("shape %q at %d: %s", p.src, p.pos, fmt.Sprintf(format, args...))
}

func (p *shapeParser) space() {
	for p.pos < len(p.src) && unicode.IsSpace(rune(p.src[p.pos])) {
		p.pos++
	}
}

// eat consumes s if it comes next.
func (p *shapeParser) eat(s string) bool {
	p.space()
	if strings.HasPrefix(p.src[p.pos:], s) {
		p.pos += len(s)
		return true
	}
	return false
}

func (p *shapeParser) word() string {
	p.space()
	start := p.pos
	for p.pos < len(p.src) && (p.src[p.pos] == '_' || unicode.IsLetter(rune(p.src[p.pos])) || unicode.IsDigit(rune(p.src[p.pos]))) {
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *shapeParser) union() (*shape, error) {
	var alts []*shape
	for {
		s, err := p.postfix()
		if err != nil {
			return nil, err
		}
		alts = append(alts, s)
		if !p.eat("|") {
			break
		}
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &shape{kind: kUnion, alts: alts}, nil
}

func (p *shapeParser) postfix() (*shape, error) {
	s, err := p.primary()
	if err != nil {
		return nil, err
	}
	for p.eat("[]") {
		s = &shape{kind: kArray, elem: s, nonEmpty: p.eat("+")}
	}
	return s, nil
}

func (p *shapeParser) primary() (*shape, error) {
	p.space()
	switch {
	case p.eat("("):
		s, err := p.union()
		if err != nil {
			return nil, err
		}
		if !p.eat(")") {
			return nil, p.fail("want )")
		}
		return s, nil
	case p.eat("{"):
		return p.object()
	case p.eat(`"`):
		end := strings.IndexByte(p.src[p.pos:], '"')
		if end < 0 {
			return nil, p.fail("unterminated string")
		}
		lit := p.src[p.pos : p.pos+end]
		p.pos += end + 1
		return &shape{kind: kLiteral, literal: lit}, nil
	}
	w := p.word()
	if w == "" {
		return nil, p.fail("want a type")
	}
	if n, err := strconv.ParseFloat(w, 64); err == nil {
		return &shape{kind: kLiteral, literal: n}, nil
	}
	kinds := map[string]shapeKind{"string": kString, "number": kNumber, "boolean": kBoolean, "null": kNull, "unknown": kUnknown, "object": kAnyObject}
	if k, ok := kinds[w]; ok {
		return &shape{kind: k}, nil
	}
	return &shape{kind: kNamed, name: w}, nil
}

// object reads the fields after `{`.
func (p *shapeParser) object() (*shape, error) {
	s := &shape{kind: kObject}
	if p.eat("[") { // {[key: string]: T}
		if p.word() != "key" || !p.eat(":") || p.word() != "string" || !p.eat("]") || !p.eat(":") {
			return nil, p.fail("want [key: string]:")
		}
		elem, err := p.union()
		if err != nil {
			return nil, err
		}
		if !p.eat("}") {
			return nil, p.fail("want }")
		}
		return &shape{kind: kMap, elem: elem}, nil
	}
	for !p.eat("}") {
		if p.eat("...") {
			s.open = true
			p.eat(",")
			continue
		}
		f := field{name: p.word()}
		if f.name == "" {
			return nil, p.fail("want a key")
		}
		if p.eat("??") {
			f.absentOK = true
		} else if p.eat("?") {
			f.optional = true
		}
		if !p.eat(":") {
			return nil, p.fail("want : after %s", f.name)
		}
		var err error
		if f.shape, err = p.union(); err != nil {
			return nil, err
		}
		s.fields = append(s.fields, f)
		if !p.eat(",") && !p.eat("}") {
			return nil, p.fail("want , or }")
		} else if p.src[p.pos-1] == '}' {
			break
		}
	}
	return s, nil
}

// shapeChecker checks decoded JSON against shapes, resolving names in named.
type shapeChecker struct {
	named map[string]*shape
}

// check reports every place where v is not of shape s, as "path: what".
func (c *shapeChecker) check(path string, s *shape, v any) []string {
	bad := func(format string, args ...any) []string {
		return []string{path + ": " + fmt.Sprintf(format, args...)}
	}
	switch s.kind {
	case kNamed:
		n, ok := c.named[s.name]
		if !ok {
			return bad("no shape named %s", s.name)
		}
		return c.check(path, n, v)
	case kUnknown:
		return nil
	case kUnion:
		// The alternative of v's JSON type explains best why v does not fit.
		var best []string
		for _, a := range s.alts {
			diffs := c.check(path, a, v)
			if len(diffs) == 0 {
				return nil
			}
			if best == nil || c.sameType(a, v) {
				best = diffs
			}
		}
		return best
	case kString, kNumber, kBoolean, kNull, kAnyObject:
		want := map[shapeKind]string{kString: "string", kNumber: "number", kBoolean: "boolean", kNull: "null", kAnyObject: "object"}[s.kind]
		if got := jsonType(v); got != want {
			return bad("%s, want %s", describe(v), want)
		}
		return nil
	case kLiteral:
		if v != s.literal {
			return bad("%s, want %#v", describe(v), s.literal)
		}
		return nil
	case kArray:
		l, ok := v.([]any)
		if !ok {
			return bad("%s, want an array", describe(v))
		}
		if s.nonEmpty && len(l) == 0 {
			return bad("empty: the sample request must find data so that its items are checked")
		}
		var diffs []string
		for i, e := range l {
			diffs = append(diffs, c.check(fmt.Sprintf("%s[%d]", path, i), s.elem, e)...)
		}
		return diffs
	case kMap:
		m, ok := v.(map[string]any)
		if !ok {
			return bad("%s, want an object", describe(v))
		}
		var diffs []string
		for _, k := range sortedKeys(m) {
			diffs = append(diffs, c.check(path+"."+k, s.elem, m[k])...)
		}
		return diffs
	case kObject:
		m, ok := v.(map[string]any)
		if !ok {
			return bad("%s, want an object", describe(v))
		}
		var diffs []string
		known := map[string]bool{}
		for _, f := range s.fields {
			known[f.name] = true
			fv, present := m[f.name]
			switch {
			case !present && f.absentOK:
			case !present:
				diffs = append(diffs, path+"."+f.name+": missing")
			case fv == nil && f.optional:
			default:
				diffs = append(diffs, c.check(path+"."+f.name, f.shape, fv)...)
			}
		}
		if !s.open {
			for _, k := range sortedKeys(m) {
				if !known[k] {
					diffs = append(diffs, path+"."+k+": not in the reference")
				}
			}
		}
		return diffs
	}
	return bad("unknown shape kind %d", s.kind)
}

// sameType: is v of the JSON type that shape s describes?
func (c *shapeChecker) sameType(s *shape, v any) bool {
	switch s.kind {
	case kNamed:
		if n, ok := c.named[s.name]; ok {
			return c.sameType(n, v)
		}
	case kObject, kMap, kAnyObject:
		return jsonType(v) == "object"
	case kArray:
		return jsonType(v) == "array"
	case kString:
		return jsonType(v) == "string"
	case kNumber:
		return jsonType(v) == "number"
	case kBoolean:
		return jsonType(v) == "boolean"
	case kNull:
		return v == nil
	case kLiteral:
		return jsonType(v) == jsonType(s.literal)
	}
	return false
}

func describe(v any) string {
	if s, ok := v.(string); ok && len(s) > 40 {
		v = s[:40] + "..."
	}
	return fmt.Sprintf("%s %v", jsonType(v), v)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
