package auth

// ValidateKeyText checks a key a caller chooses (dev's --dev-key) before anything starts.
func ValidateKeyText(k string) error { return validateKeyText(k) }
