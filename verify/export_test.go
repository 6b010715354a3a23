package verify

// Test helpers shared with the external tests of this directory (package verify_test).
var (
	InstallStandin = installStandin
	StandinVersion = standinVersion
	FixtureClass   = fixtureClass
	WaitFinal      = waitFinal
	History        = history
	Sources        = sources
	StartWorkers   = startWorkers
)
