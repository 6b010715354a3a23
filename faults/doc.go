// Package faults holds the service's fault-injection tests: PostgreSQL stopped and
// started again under a steady request load (faults_test.go). The Redis outages of the
// rate limiter are tested in package auth. It has no code of its own.
package faults
