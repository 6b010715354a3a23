package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
)

// domains are the db.Domain of each value of the schema's ValueDomain enum.
var domains = map[model.ValueDomain]*db.Domain{
	model.ValueDomainBlockNumber:   &db.BlockNumbers,
	model.ValueDomainUnixTime:      &db.UnixTimes,
	model.ValueDomainPageSize:      &db.PageSizes,
	model.ValueDomainSearchSize:    &db.SearchSizes,
	model.ValueDomainDays:          &db.RangeDays,
	model.ValueDomainHours:         &db.RangeHours,
	model.ValueDomainSecretOverlap: &db.SecretOverlaps,
}

// DomainOf is the db.Domain a @domain directive names (nil for a value the enum gained
// without one here, which TestEveryIntNamesItsDomain catches).
func DomainOf(of model.ValueDomain) *db.Domain { return domains[of] }

// Domain implements the @domain directive of Int arguments and input fields: the value
// read, checked in its domain (db.Domain.Check): below it, or above a bounded one, an
// error naming the argument (filter.fromBlock); above a bound's, the domain's largest.
func Domain(ctx context.Context, _ any, next graphql.Resolver, of model.ValueDomain) (any, error) {
	v, err := next(ctx)
	if err != nil {
		return v, err
	}
	d := domains[of]
	if d == nil {
		return v, nil
	}
	switch x := v.(type) {
	case *int:
		if x == nil {
			return x, nil
		}
		n, err := d.Check(int64(*x))
		if err != nil {
			return x, badInput(argumentName(ctx), err.Error())
		}
		i := int(n)
		return &i, nil
	case int:
		n, err := d.Check(int64(x))
		if err != nil {
			return x, badInput(argumentName(ctx), err.Error())
		}
		return int(n), nil
	}
	return v, nil
}

// argumentName is the dotted name of the argument or input field being read
// (filter.fromBlock), from the path gqlgen keeps while it reads arguments.
func argumentName(ctx context.Context) string {
	var names []string
	for pc := graphql.GetPathContext(ctx); pc != nil; pc = pc.Parent {
		if pc.Field != nil {
			names = append(names, *pc.Field)
		}
	}
	out := ""
	for i := len(names) - 1; i >= 0; i-- {
		if out != "" {
			out += "."
		}
		out += names[i]
	}
	return out
}
