package labels

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
)

const usage = "usage: starkgraph labels import FILE | list [--json] | rm ADDRESS"

// RunCommand runs `starkgraph labels ...` against conn.
func RunCommand(ctx context.Context, conn *sqlx.DB, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "import":
		if len(args) != 2 {
			return errors.New("usage: starkgraph labels import FILE")
		}
		l, err := ReadFile(args[1])
		if err != nil {
			return err
		}
		if err := db.ImportLabels(ctx, conn, Rows(l.Labels)); err != nil {
			return err
		}
		fmt.Fprintf(out, "imported %d labels\n", len(l.Labels))
		return nil
	case "list":
		fs := flag.NewFlagSet("labels list", flag.ContinueOnError)
		asJSON := fs.Bool("json", false, "print the labels as JSON")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		rows, err := db.ListLabels(ctx, conn)
		if err != nil {
			return err
		}
		if *asJSON {
			type item struct {
				Entry
				Origin string `json:"origin"`
			}
			items := make([]item, len(rows))
			for i, r := range rows {
				items[i] = item{entryOf(r), r.Origin}
			}
			enc := json.NewEncoder(out)
			enc.SetIndent("", "  ")
			return enc.Encode(items)
		}
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ADDRESS\tNAME\tKIND\tVERIFIED\tORIGIN\tLOGO\tSOURCE")
		for _, r := range rows {
			e := entryOf(r)
			fmt.Fprintf(w, "%s\t%s\t%s\t%v\t%s\t%s\t%s\n", e.Address, e.Name, e.Kind, e.Verified, r.Origin, e.Logo, e.Source)
		}
		return w.Flush()
	case "rm":
		if len(args) != 2 {
			return errors.New("usage: starkgraph labels rm ADDRESS")
		}
		f, err := starknet.ParseFelt(args[1])
		if err != nil {
			return fmt.Errorf("address: %w", err)
		}
		ok, err := db.DeleteLabel(ctx, conn, db.FeltOf(f))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no label for %s", f.Padded())
		}
		fmt.Fprintf(out, "removed the label of %s\n", f.Padded())
		return nil
	}
	return fmt.Errorf("unknown labels command %q; %s", args[0], usage)
}

func entryOf(r db.Label) Entry {
	e := Entry{Address: r.Address.Starknet().Padded(), Name: r.Name, Kind: r.Kind, Verified: r.Verified, Source: r.Source}
	if r.LogoURL != nil {
		e.Logo = *r.LogoURL
	}
	return e
}
