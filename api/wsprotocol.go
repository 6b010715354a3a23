package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
)

// The close codes of graphql-transport-ws
// (https://github.com/enisdenjo/graphql-ws/blob/master/PROTOCOL.md), and the RFC 6455 codes
// this server uses beside them. graphql-ws's client gives up at once on 4400, 4401, 4409,
// 4429 and 4500; it retries 4403, 4408, 1012 and 1013 with its backoff, up to its
// retryAttempts; on 1000 it reconnects at once while a subscription is wanted, which is
// why a refusal must never be closed as 1000.
const (
	closeBadMessage       = 4400 // a message this protocol does not allow
	closeUnauthorized     = 4401 // subscribe before connection_ack
	closeForbidden        = 4403 // connection_init without a valid key
	closeInitTimeout      = 4408 // no connection_init in time
	closeSubscriberExists = 4409 // subscribe with the id of a running operation
	closeTooManyInits     = 4429 // a second connection_init
	closeInternal         = 4500 // an error of the server's own
	closeServiceRestart   = 1012 // the server is stopping: come back (RFC 6455)
	closeTryAgainLater    = 1013 // over the key's rate or quota, or a dependency down (RFC 6455)
)

const transportWS = "graphql-transport-ws"

// wsInitTimeout is how long a socket may wait before its connection_init (4408 after it).
var wsInitTimeout = 10 * time.Second

// protocolWS accepts WebSockets for gqlgen's transport and holds a graphql-transport-ws
// connection to the protocol where gqlgen does not: gqlgen closes every breach as 1002
// (or ends the connection as 1000) and lets a subscribe id be reused while it runs. It
// checks each client message before gqlgen reads it and closes the socket with the
// protocol's code; connections of the legacy graphql-ws subprotocol pass as they are.
type protocolWS struct {
	inner       transport.WebsocketImplementation
	initTimeout time.Duration
}

func (p protocolWS) Accept(w http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	c, err := p.inner.Accept(w, r, opts)
	if err != nil || c.Subprotocol() != transportWS {
		return c, err
	}
	pc := &protocolConn{WebsocketConn: c, active: map[string]bool{}, stale: map[string]int{}}
	if p.initTimeout > 0 {
		// Set under the lock that closeWith reads it under: the timer may fire at once.
		pc.mu.Lock()
		defer pc.mu.Unlock()
		pc.initTimer = time.AfterFunc(p.initTimeout, func() {
			pc.mu.Lock()
			late := !pc.initReceived
			pc.mu.Unlock()
			if late {
				pc.closeWith(closeInitTimeout, "Connection initialisation timeout")
			}
		})
	}
	if bw, ok := r.Context().Value(streamKey{}).(*boundedWrites); ok {
		bw.setGoingAway(func() { pc.closeWith(closeServiceRestart, "Service Restart") })
	}
	return pc, nil
}

// protocolConn is one graphql-transport-ws socket: what the client has said so far, and
// the ids of its running operations.
type protocolConn struct {
	transport.WebsocketConn
	initTimer *time.Timer

	mu           sync.Mutex
	initReceived bool
	acked        bool
	closed       bool
	active       map[string]bool // ids subscribed and not yet completed by either side
	// stale counts, per id, the operations the client completed whose end gqlgen has yet
	// to write: the protocol sends nothing more for them, and the id may be in use again.
	stale map[string]int
}

// clientMessage is what a client may send; pointers tell absent from null.
type clientMessage struct {
	Type    *string          `json:"type"`
	ID      *string          `json:"id"`
	Payload *json.RawMessage `json:"payload"`
}

type subscribePayload struct {
	Query         *string          `json:"query"`
	OperationName *json.RawMessage `json:"operationName"`
	Variables     *json.RawMessage `json:"variables"`
	Extensions    *json.RawMessage `json:"extensions"`
}

// NextReader hands gqlgen the client's next message once it is one the protocol allows
// now; a ping or pong before connection_init, which gqlgen would refuse, is answered here.
// After a breach the socket is closing with its code, and gqlgen is told it closed.
func (c *protocolConn) NextReader() (int, io.Reader, error) {
	for {
		kind, r, err := c.WebsocketConn.NextReader()
		if err != nil {
			return kind, r, err
		}
		data, err := io.ReadAll(r)
		if err != nil {
			return kind, nil, err
		}
		pass, code, reason := c.check(data)
		if code != 0 {
			c.closeWith(code, reason)
			return kind, nil, transport.ErrWebsocketClosed
		}
		if pass {
			return kind, bytes.NewReader(data), nil
		}
	}
}

// check says whether gqlgen should read data, or else the code and reason to close with
// (0: neither; the message was answered or ignored here).
func (c *protocolConn) check(data []byte) (pass bool, code int, reason string) {
	var m clientMessage
	if err := json.Unmarshal(data, &m); err != nil || m.Type == nil {
		return false, closeBadMessage, "Invalid message received"
	}
	payload := func(allowNull bool) bool {
		if m.Payload == nil || (allowNull && string(*m.Payload) == "null") {
			return allowNull
		}
		var obj map[string]json.RawMessage
		return json.Unmarshal(*m.Payload, &obj) == nil && obj != nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch *m.Type {
	case "connection_init":
		if !payload(true) {
			return false, closeBadMessage, "Invalid message received: connection_init's payload is not an object"
		}
		if c.initReceived {
			return false, closeTooManyInits, "Too many initialisation requests"
		}
		c.initReceived = true
		if c.initTimer != nil {
			c.initTimer.Stop()
		}
		return true, 0, ""
	case "ping", "pong":
		if !payload(true) {
			return false, closeBadMessage, "Invalid message received: " + *m.Type + "'s payload is not an object"
		}
		if !c.initReceived { // gqlgen reads connection_init first and would refuse these
			if *m.Type == "ping" {
				_ = c.WebsocketConn.WriteJSON(map[string]string{"type": "pong"})
			}
			return false, 0, ""
		}
		return true, 0, ""
	case "subscribe":
		var p subscribePayload
		if m.ID == nil || *m.ID == "" || !payload(false) || json.Unmarshal(*m.Payload, &p) != nil || p.Query == nil ||
			!stringOrNull(p.OperationName) || !objectOrNull(p.Variables) || !objectOrNull(p.Extensions) {
			return false, closeBadMessage, "Invalid message received: subscribe needs an id and a payload with a query"
		}
		if !c.acked {
			return false, closeUnauthorized, "Unauthorized"
		}
		if c.active[*m.ID] {
			return false, closeSubscriberExists, limitReason("Subscriber for " + *m.ID + " already exists")
		}
		c.active[*m.ID] = true
		return true, 0, ""
	case "complete":
		if m.ID == nil || *m.ID == "" {
			return false, closeBadMessage, "Invalid message received: complete needs an id"
		}
		if c.active[*m.ID] {
			delete(c.active, *m.ID)
			c.stale[*m.ID]++
		}
		return true, 0, ""
	}
	return false, closeBadMessage, limitReason("Invalid message received: a client does not send " + *m.Type)
}

func stringOrNull(v *json.RawMessage) bool {
	var s *string
	return v == nil || json.Unmarshal(*v, &s) == nil
}

func objectOrNull(v *json.RawMessage) bool {
	var obj map[string]json.RawMessage
	return v == nil || json.Unmarshal(*v, &obj) == nil
}

// limitReason fits a close reason in the 123 bytes a close frame allows.
func limitReason(s string) string {
	if len(s) > 123 {
		return s[:120] + "..."
	}
	return s
}

// WriteJSON notes the server's acknowledgement and the operations it ends (complete or
// error), whose ids the client may then use again. What gqlgen still writes for an
// operation the client completed is dropped: the protocol sends nothing more for it, and a
// complete would end the client's next operation of that id.
func (c *protocolConn) WriteJSON(v any) error {
	typ, id := messageTypeAndID(v)
	c.mu.Lock()
	switch typ {
	case "connection_ack":
		c.acked = true
	case "next":
		if c.stale[id] > 0 && !c.active[id] {
			c.mu.Unlock()
			return nil
		}
	case "complete", "error":
		if c.stale[id] > 0 {
			if c.stale[id]--; c.stale[id] == 0 {
				delete(c.stale, id)
			}
			c.mu.Unlock()
			return nil
		}
		delete(c.active, id)
	}
	c.mu.Unlock()
	return c.WebsocketConn.WriteJSON(v)
}

// messageTypeAndID reads the Type and ID fields of gqlgen's (unexported) message struct.
func messageTypeAndID(v any) (typ, id string) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return "", ""
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return "", ""
	}
	if f := rv.FieldByName("Type"); f.IsValid() && f.Kind() == reflect.String {
		typ = f.String()
	}
	if f := rv.FieldByName("ID"); f.IsValid() && f.Kind() == reflect.String {
		id = f.String()
	}
	return typ, id
}

// closeWith closes the socket with code, once: gqlgen's own close that follows (1000 or
// 1002) is then a no-op of the underlying connection.
func (c *protocolConn) closeWith(code int, reason string) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	timer := c.initTimer
	c.mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	_ = c.WebsocketConn.WriteClose(code, reason)
}

func (c *protocolConn) WriteClose(code int, reason string) error {
	c.closeWith(code, reason)
	return nil
}

func (c *protocolConn) Close() error {
	if c.initTimer != nil {
		c.initTimer.Stop()
	}
	return c.WebsocketConn.Close()
}

// SetReadLimit and SetReadDeadline pass gqlgen's options on to the connection.
func (c *protocolConn) SetReadLimit(limit int64) {
	if l, ok := c.WebsocketConn.(transport.WebsocketReadLimiter); ok {
		l.SetReadLimit(limit)
	}
}

func (c *protocolConn) SetReadDeadline(t time.Time) error {
	if d, ok := c.WebsocketConn.(transport.WebsocketReadDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return nil
}
