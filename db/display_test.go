package db

import "testing"

func TestTransactionStatus(t *testing.T) {
	for _, c := range []struct{ execution, finality, status, shownExecution, shownFinality string }{
		{"SUCCEEDED", "ACCEPTED_ON_L2", "Accepted on L2", "Succeeded", "Accepted on L2"},
		{"SUCCEEDED", "ACCEPTED_ON_L1", "Accepted on L1", "Succeeded", "Accepted on L1"},
		// A reverted transaction is final all the same; its one-word status says it failed.
		{"REVERTED", "ACCEPTED_ON_L1", "Reverted", "Reverted", "Accepted on L1"},
		{"SUCCEEDED", "PRE_CONFIRMED", "Pre-confirmed", "Succeeded", "Pre-confirmed"},
		{"SUCCEEDED", "SOMETHING_NEW", "SOMETHING_NEW", "Succeeded", "SOMETHING_NEW"},
	} {
		tx := Transaction{RawExecutionStatus: c.execution, RawFinalityStatus: c.finality}
		if got := tx.Status(); got != c.status {
			t.Errorf("%s/%s: Status() = %q, want %q", c.execution, c.finality, got, c.status)
		}
		if got := tx.ExecutionStatus(); got != c.shownExecution {
			t.Errorf("%s: ExecutionStatus() = %q, want %q", c.execution, got, c.shownExecution)
		}
		if got := tx.FinalityStatus(); got != c.shownFinality {
			t.Errorf("%s: FinalityStatus() = %q, want %q", c.finality, got, c.shownFinality)
		}
	}
	if got := (&Block{RawStatus: "ACCEPTED_ON_L2"}).Status(); got != "Accepted on L2" {
		t.Errorf("block status = %q", got)
	}
}
