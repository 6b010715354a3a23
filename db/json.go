package db

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
)

// JSON is a jsonb column kept as raw bytes: the APIs pass it through without decoding.
// A NULL column is a nil JSON.
type JSON json.RawMessage

// MarshalJSON writes the raw value, or null.
func (j JSON) MarshalJSON() ([]byte, error) {
	if j == nil {
		return []byte("null"), nil
	}
	return j, nil
}

// UnmarshalJSON keeps a copy of the raw value.
func (j *JSON) UnmarshalJSON(b []byte) error {
	*j = append((*j)[:0], b...)
	return nil
}

// Value stores the value as jsonb text.
func (j JSON) Value() (driver.Value, error) {
	if j == nil {
		return nil, nil
	}
	return []byte(j), nil
}

// Scan reads jsonb.
func (j *JSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = nil
	case []byte:
		*j = append(JSON{}, v...)
	case string:
		*j = JSON(v)
	default:
		return fmt.Errorf("json: cannot scan %T", src)
	}
	return nil
}
