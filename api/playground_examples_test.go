package api

import (
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/starkgraph/starkgraph/graph"
)

// Every example tab of the playground is a valid document of the schema.
func TestPlaygroundTabsAreValid(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	if len(playgroundTabs) < 4 {
		t.Fatalf("%d tabs, want the overview and three linked paths", len(playgroundTabs))
	}
	for _, tab := range playgroundTabs {
		doc, err := parser.ParseQuery(&ast.Source{Input: tab.Query})
		if err != nil {
			t.Errorf("%s: %v", tab.Name, err)
			continue
		}
		if errs := validator.ValidateWithRules(schema, doc, nil); len(errs) > 0 {
			t.Errorf("%s: %v", tab.Name, errs)
		}
	}
}
