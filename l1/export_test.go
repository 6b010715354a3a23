package l1

import "math/big"

// For the external tests: the event's topic, and its data as the core contract writes it.
var LogMessageToL2Topic = logMessageToL2.ID

func PackMessageData(payload []*big.Int, nonce, fee *big.Int) ([]byte, error) {
	return logMessageToL2.Inputs.NonIndexed().Pack(payload, nonce, fee)
}
