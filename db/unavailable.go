package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/lib/pq"
)

// Unavailable reports whether err says that PostgreSQL could not be reached or is not
// serving (stopped, restarting, out of connections), as opposed to a fault of the query:
// the APIs answer such errors 503 with Retry-After, and database/sql reconnects by itself
// once the server is back.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ENOENT) {
		return true
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		switch pqErr.Code.Class() {
		case "08", "53": // connection exception; insufficient resources (too many connections)
			return true
		case "57": // operator intervention: shutdown, crash recovery; not a statement timeout
			return pqErr.Code != "57014"
		}
		return false
	}
	var netErr net.Error
	return errors.As(err, &netErr)
}

// TimedOut reports whether err is a statement stopped by its deadline: the request's
// context or PostgreSQL's statement_timeout.
func TimedOut(err error) bool {
	var pqErr *pq.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &pqErr) && pqErr.Code == "57014")
}

// Fault is how both APIs answer an error that is not the client's and that retrying can
// cure: a 503 with Retry-After, a code and a message.
type Fault struct {
	Code       string // TIMEOUT or UNAVAILABLE (GraphQL extensions.code)
	RetryAfter string // seconds
	Message    string
}

var (
	// TimeoutFault answers a request that ran out of its time (its SQL cancelled with it).
	TimeoutFault = Fault{"TIMEOUT", "1", "the request took longer than the server allows (--request-timeout); ask for less or retry"}
	// UnavailableFault answers a request the database could not serve.
	UnavailableFault = Fault{"UNAVAILABLE", "5", "the database is unavailable; retry in a few seconds"}
)

// RetryableFault classifies err, met while serving a request with context ctx: a timeout,
// an unavailable database, or neither (ok false: an internal error).
func RetryableFault(ctx context.Context, err error) (f Fault, ok bool) {
	switch {
	case TimedOut(err) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return TimeoutFault, true
	case Unavailable(err):
		return UnavailableFault, true
	}
	return Fault{}, false
}
