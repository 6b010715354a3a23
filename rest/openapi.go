package rest

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/starkgraph/starkgraph/db"
)

// The OpenAPI 3.1 document is generated from the route table and from the Go types of the
// responses, the same types the handlers marshal, so it describes what is served. Schema
// conventions: a pointer is nullable, a field tagged `nullable:"true"` too; `enum:"a,b"`
// lists the values; `schema:"array|object|any"` types a raw JSON field; `omitempty`
// fields are optional; objects allow no other keys.

// feltPattern is what the handlers accept for addresses and hashes.
const feltPattern = "^0[xX][0-9a-fA-F]{1,64}$"

type schemaBuilder struct {
	components map[string]any
}

var (
	jsonNumberType = reflect.TypeOf(json.Number(""))
	rawJSONType    = reflect.TypeOf(db.JSON(nil))
)

// schema describes t; nullable adds null to the allowed types.
func (b *schemaBuilder) schema(t reflect.Type, field reflect.StructField, nullable bool) map[string]any {
	if t.Kind() == reflect.Pointer {
		return b.schema(t.Elem(), field, true)
	}
	var s map[string]any
	switch {
	case t == jsonNumberType:
		s = map[string]any{"type": "number"}
	case t == rawJSONType || t.Kind() == reflect.Interface:
		switch field.Tag.Get("schema") {
		case "array":
			s = map[string]any{"type": "array"}
		case "object":
			s = map[string]any{"type": "object"}
		default:
			return map[string]any{} // any JSON value
		}
	case t.Kind() == reflect.String:
		s = map[string]any{"type": "string"}
	case t.Kind() == reflect.Bool:
		s = map[string]any{"type": "boolean"}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		s = map[string]any{"type": "integer"}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		s = map[string]any{"type": "number"}
	case t.Kind() == reflect.Slice:
		s = map[string]any{"type": "array", "items": b.schema(t.Elem(), reflect.StructField{}, false)}
	case t.Kind() == reflect.Map:
		s = map[string]any{"type": "object", "additionalProperties": b.schema(t.Elem(), reflect.StructField{}, false)}
	case t.Kind() == reflect.Struct:
		return b.object(t, nullable)
	default:
		panic("rest: no schema for " + t.String())
	}
	if enum := field.Tag.Get("enum"); enum != "" {
		var values []any
		for _, v := range strings.Split(enum, ",") {
			if s["type"] == "integer" {
				n, _ := strconv.Atoi(v)
				values = append(values, n)
			} else {
				values = append(values, v)
			}
		}
		if nullable {
			values = append(values, nil)
		}
		s["enum"] = values
	}
	if nullable || field.Tag.Get("nullable") == "true" {
		s["type"] = []any{s["type"], "null"}
	}
	return s
}

// object describes a struct: named types become components, instances of generic
// envelopes are written in place.
func (b *schemaBuilder) object(t reflect.Type, nullable bool) map[string]any {
	name := t.Name()
	if name == "" || strings.Contains(name, "[") {
		return orNull(b.properties(t), nullable)
	}
	if _, done := b.components[name]; !done {
		b.components[name] = nil // mark before recursing
		b.components[name] = b.properties(t)
	}
	return orNull(map[string]any{"$ref": "#/components/schemas/" + name}, nullable)
}

func orNull(s map[string]any, nullable bool) map[string]any {
	if !nullable {
		return s
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

func (b *schemaBuilder) properties(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []string{}
	// Fields nearer the outer struct come first: as in encoding/json, an outer field hides
	// an embedded one of the same name.
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		var embedded []reflect.Type
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				embedded = append(embedded, f.Type) // its fields are the outer object's
				continue
			}
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, hidden := props[name]; hidden {
				continue
			}
			props[name] = b.schema(f.Type, f, false)
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
		}
		for _, e := range embedded {
			walk(e)
		}
	}
	walk(t)
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// paramSchema describes a parameter as the handlers parse it.
func paramSchema(p param) map[string]any {
	s := map[string]any{"type": "string"}
	switch p.kind {
	case kindPage:
		s = map[string]any{"type": "integer", "minimum": 1}
	case kindPageSize:
		s = map[string]any{"type": "integer", "enum": []any{10, 25, 50, 100}}
	case kindLimit:
		s = map[string]any{"type": "integer", "minimum": 1, "maximum": 100}
	case kindInt:
		s = map[string]any{"type": "integer", "minimum": 0}
	case kindFelt, kindHash:
		s["pattern"] = feltPattern
	case kindEnum:
		values := make([]any, len(p.enum))
		for i, v := range p.enum {
			values[i] = v
		}
		s["enum"] = values
	case kindBigInt:
		s["pattern"] = "^([0-9]{1,78}|0[xX][0-9a-fA-F]{1,64})$"
	}
	if s["type"] == "string" {
		s["maxLength"] = p.maxLen()
	}
	if p.def != "" {
		if s["type"] == "integer" {
			n, _ := strconv.Atoi(p.def)
			s["default"] = n
		} else {
			s["default"] = p.def
		}
	}
	return s
}

func jsonContent(schema any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

var errorRef = map[string]any{"$ref": "#/components/schemas/Error"}

// openAPIDocument builds the document of everything NewHandler serves.
func openAPIDocument() map[string]any {
	b := &schemaBuilder{components: map[string]any{}}
	b.components["Error"] = b.properties(reflect.TypeOf(errorBody{}))
	b.components["Message"] = map[string]any{
		"type": "object", "required": []string{"message"}, "additionalProperties": false,
		"properties": map[string]any{"message": map[string]any{"type": "string"}},
	}
	paths := map[string]any{}
	for _, rt := range routeTable() {
		op := map[string]any{
			"operationId": rt.opID,
			"summary":     rt.summary,
			"x-graphql":   rt.graphql,
			"responses":   responsesOf(b, rt),
		}
		if rt.description != "" {
			op["description"] = rt.description
		}
		params := []any{}
		for _, p := range rt.params {
			desc := p.desc
			if p.kind == kindEnum {
				desc += " Matched case-insensitively."
			}
			if p.kind == kindString {
				desc += " Control characters and bytes that are not UTF-8 are refused (400)."
			}
			params = append(params, map[string]any{
				"name": p.name, "in": p.in, "required": p.required, "description": desc, "schema": paramSchema(p),
			})
		}
		op["parameters"] = params
		if rt.body != nil {
			body := b.schema(reflect.TypeOf(rt.body), reflect.StructField{}, false)
			op["requestBody"] = map[string]any{
				"required":    true,
				"description": "Cairo sources and metadata, at most 10 MB. In multipart/form-data, files are parts named `files[<path>]`, file uploads named `files`, or one `files` field holding a JSON object.",
				"content": map[string]any{
					"multipart/form-data": map[string]any{"schema": body},
					"application/json":    map[string]any{"schema": body},
				},
			}
		}
		item, _ := paths[strings.TrimPrefix(rt.path, "/beta")].(map[string]any)
		if item == nil {
			item = map[string]any{}
		}
		item[strings.ToLower(rt.method)] = op
		paths[strings.TrimPrefix(rt.path, "/beta")] = item
	}
	paths["/openapi.json"] = map[string]any{"get": map[string]any{
		"operationId": "getOpenApiDocument", "summary": "This document",
		"responses": map[string]any{"200": map[string]any{"description": "The OpenAPI document", "content": jsonContent(map[string]any{"type": "object"})}},
	}}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "starkgraph /beta REST interface",
			"version":     "beta",
			"description": "The public Starknet explorer API, served over starkgraph's index. Every request carries an API key in `x-api-key`.",
		},
		"servers":  []any{map[string]any{"url": "/beta"}},
		"security": []any{map[string]any{"apiKey": []any{}}},
		"paths":    paths,
		"components": map[string]any{
			"schemas": b.components,
			"securitySchemes": map[string]any{
				"apiKey": map[string]any{"type": "apiKey", "in": "header", "name": "x-api-key"},
			},
		},
	}
}

func responsesOf(b *schemaBuilder, rt route) map[string]any {
	out := map[string]any{
		"200": map[string]any{"description": rt.summary, "content": jsonContent(b.schema(reflect.TypeOf(rt.resp), reflect.StructField{}, false))},
		"403": map[string]any{"description": "Missing or unknown API key", "content": jsonContent(map[string]any{"$ref": "#/components/schemas/Message"})},
		"429": map[string]any{"description": "Rate limit or quota exhausted", "content": jsonContent(map[string]any{"$ref": "#/components/schemas/Message"})},
	}
	for _, st := range rt.statuses {
		out[strconv.Itoa(st)] = map[string]any{"description": http.StatusText(st), "content": jsonContent(errorRef)}
	}
	return out
}
