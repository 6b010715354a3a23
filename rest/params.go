package rest

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/scalars"
	"github.com/starkgraph/starkgraph/starknet"
)

// paramKind says how a parameter is read and validated, and how the OpenAPI document
// describes it.
type paramKind int

const (
	kindPage     paramKind = iota // p: integer >= 1, default 1
	kindPageSize                  // ps: 10, 25, 50 or 100, default 25
	kindLimit                     // limit: 1..100, default 25
	kindCursor                    // cursor: an opaque cursor from a previous response
	kindFelt                      // 0x and 1-64 hex digits, a field element
	kindInt                       // an integer in its declared domain (block numbers, times)
	kindEnum                      // one of enum, matched case-insensitively
	kindBigInt                    // a u256 in decimal or 0x-hex (NFT token ids)
	kindString                    // free text
	kindHash                      // 0x and 1-64 hex digits, any 256-bit value (keccak hashes)
)

// param declares one path or query parameter of an operation. The same declaration
// parses the request (parseArgs, the only reader of a request's parameters), writes the
// OpenAPI document and generates the fuzz corpus and the hostile load (Operations), so
// none of them can disagree or leave a parameter out.
type param struct {
	name     string
	in       string // "query" or "path"
	kind     paramKind
	required bool
	enum     []string   // kindEnum: the accepted values, lowercase
	def      string     // default value, as the client would send it
	max      int        // longest value in bytes; 0: the kind's (maxLen)
	domain   *db.Domain // kindInt: the values accepted, those of the columns compared with
	desc     string
}

func query(name string, kind paramKind, desc string) param {
	return param{name: name, in: "query", kind: kind, desc: desc}
}

func path(name string, kind paramKind, desc string) param {
	return param{name: name, in: "path", kind: kind, required: true, desc: desc}
}

func (p param) req() param { p.required = true; return p }

func (p param) withDefault(d string) param { p.def = d; return p }

func (p param) oneOf(values ...string) param { p.enum = values; return p }

func (p param) maxLength(n int) param { p.max = n; return p }

// blockParam and timeParam are integer parameters compared with block numbers and block
// times: a value above the columns' range reads as their largest (above the head), a
// negative one is refused (db.Domain).
func blockParam(name, desc string) param {
	p := query(name, kindInt, desc)
	p.domain = &db.BlockNumbers
	return p
}

func timeParam(name, desc string) param {
	p := query(name, kindInt, desc)
	p.domain = &db.UnixTimes
	return p
}

// maxLen is the longest value p accepts, in bytes: its own limit, else its kind's. Nothing
// valid of a kind is longer (a felt is at most 66 characters, a u256 in decimal 78).
func (p param) maxLen() int {
	if p.max > 0 {
		return p.max
	}
	switch p.kind {
	case kindString:
		return maxTextLen
	case kindCursor:
		return maxParamLen
	default:
		return 80
	}
}

// The parameters most operations share.
var (
	pageParam     = query("p", kindPage, "Page number.").withDefault("1")
	pageSizeParam = query("ps", kindPageSize, "Items per page: 10, 25, 50 or 100.").withDefault("25")
	cursorParam   = query("cursor", kindCursor, "Opaque cursor returned by the previous response (`pagination.next` or `pagination.prev`); omit it on the first request.")
	limitParam    = query("limit", kindLimit, "Maximum number of items to return (1 to 100).").withDefault("25")
)

var pageSizes = []int{10, 25, 50, 100}

// maxParamLen bounds a cursor; maxTextLen a free-text parameter (a search, a symbol, an
// id), unless its declaration says less.
const (
	maxParamLen = 4096
	maxTextLen  = 256
)

// args holds the parsed parameters of one request. Handlers read them by name; reading a
// name the operation did not declare is a programming error and panics (a test catches it).
type args struct {
	values map[string]any
}

func (a *args) get(name string) any {
	v, ok := a.values[name]
	if !ok {
		panic("rest: parameter " + name + " is not declared by this operation")
	}
	return v
}

// felt is a declared felt parameter, nil when absent.
func (a *args) felt(name string) db.Felt { f, _ := a.get(name).(db.Felt); return f }

// hash is a declared 256-bit hash parameter in its column form, nil when absent.
func (a *args) hash(name string) db.Felt { return a.felt(name) }

// int is a declared integer parameter (page, page size, limit, block number); nil when absent
// and without a default.
func (a *args) int(name string) *int { i, _ := a.get(name).(*int); return i }

// str is a declared string, enum, big-integer or cursor parameter, "" when absent.
func (a *args) str(name string) string { s, _ := a.get(name).(string); return s }

// optional is a declared string parameter, nil when the client did not send it.
func (a *args) optional(name string) *string {
	if !a.has(name) {
		return nil
	}
	s := a.str(name)
	return &s
}

// direction reads an asc/desc parameter (one with a default, so always set) as a GraphQL
// sort direction.
func (a *args) direction(name string) model.SortDirection {
	return model.SortDirection(strings.ToUpper(a.str(name)))
}

// has tells whether the client sent the parameter.
func (a *args) has(name string) bool {
	_ = a.get(name)
	return a.values[name] != nil
}

// parseArgs reads and validates every declared parameter. Unknown query parameters are
// ignored, as clients send parameters an operation does not use.
func parseArgs(r *http.Request, params []param) (*args, error) {
	q := r.URL.Query()
	a := &args{values: make(map[string]any, len(params))}
	for _, p := range params {
		var raw string
		var present bool
		if p.in == "path" {
			raw = r.PathValue(p.name)
			present = raw != ""
		} else {
			vs, ok := q[p.name]
			if ok && len(vs) > 0 {
				raw, present = vs[0], true
			}
		}
		raw = strings.TrimSpace(raw)
		if present && raw == "" {
			if p.kind == kindFelt {
				// An empty address is a mistake, not "no filter": answering the whole list
				// would hide it.
				return nil, badRequest("%s: empty; give 0x and 1 to 64 hex digits, or leave the parameter out", p.name)
			}
			present = false // `?type=` means the same as leaving it out
		}
		if !present {
			if p.required {
				return nil, badRequest("%s: required %s parameter is missing", p.name, p.in)
			}
			if p.def == "" {
				a.values[p.name] = nil
				continue
			}
			raw = p.def
		}
		if err := checkText(p, raw); err != nil {
			return nil, err
		}
		v, err := parseValue(p, raw)
		if err != nil {
			return nil, badRequest("%s: %v", p.name, err)
		}
		a.values[p.name] = v
	}
	return a, nil
}

// checkText refuses, for every parameter before its kind reads it, what no parameter may
// carry: a value longer than its declaration allows, bytes that are not UTF-8, and
// control characters (NUL, which PostgreSQL refuses in text, and the others, which no
// valid value holds).
func checkText(p param, raw string) error {
	if n := p.maxLen(); len(raw) > n {
		return badRequest("%s: value is %d bytes long, longer than the %d allowed", p.name, len(raw), n)
	}
	if !utf8.ValidString(raw) {
		return badRequest("%s: value is not valid UTF-8", p.name)
	}
	if i := strings.IndexFunc(raw, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(raw[i:])
		return badRequest("%s: control character %U at byte %d is not allowed", p.name, r, i)
	}
	return nil
}

func parseValue(p param, raw string) (any, error) {
	switch p.kind {
	case kindPage:
		n, err := strconv.Atoi(raw)
		if errors.Is(err, strconv.ErrRange) && strings.Trim(raw, "0123456789") == "" {
			n, err = math.MaxInt, nil // a page past every list: empty, not an error
		}
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a page number (an integer from 1)", short(raw))
		}
		return &n, nil
	case kindPageSize:
		n, err := strconv.Atoi(raw)
		if err != nil || !slices.Contains(pageSizes, n) {
			return nil, fmt.Errorf("%q is not an allowed page size (10, 25, 50 or 100)", short(raw))
		}
		return &n, nil
	case kindLimit:
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > 100 {
			return nil, fmt.Errorf("%q is not a limit from 1 to 100", short(raw))
		}
		return &n, nil
	case kindInt:
		return parseInDomain(raw, *p.domain)
	case kindFelt:
		f, err := db.ParseFelt(raw)
		if err != nil {
			return nil, fmt.Errorf("%q %v", short(raw), err)
		}
		return f, nil
	case kindHash:
		h, err := starknet.ParseHash256(raw)
		if err != nil {
			return nil, fmt.Errorf("%q must be 0x followed by 1 to 64 hex digits", short(raw))
		}
		return db.Normalize(h[:]), nil
	case kindEnum:
		v := strings.ToLower(raw)
		if !slices.Contains(p.enum, v) {
			return nil, fmt.Errorf("%q is not one of %s", short(raw), strings.Join(p.enum, ", "))
		}
		return v, nil
	case kindBigInt:
		s, err := scalars.ParseBigInt(raw)
		if err != nil {
			return nil, fmt.Errorf("not a token id: %v", err)
		}
		return s, nil
	case kindCursor, kindString:
		return raw, nil
	}
	return nil, fmt.Errorf("unsupported parameter kind")
}

// parseInDomain reads a decimal integer of d. Digits beyond 64 bits are a value above
// any domain: read as d's largest where d saturates, refused where it does not.
func parseInDomain(raw string, d db.Domain) (*int, error) {
	n, err := strconv.ParseInt(raw, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		if strings.HasPrefix(raw, "-") {
			n, err = math.MinInt64, nil
		} else {
			n, err = math.MaxInt64, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%q is not an integer (%s)", short(raw), d.Name)
	}
	v, err := d.Check(n)
	if err != nil {
		return nil, fmt.Errorf("%q %v (%s)", short(raw), err, d.Name)
	}
	i := int(v)
	return &i, nil
}

// short keeps error messages small when a client sends a huge value.
func short(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
