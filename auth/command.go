package auth

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jmoiron/sqlx"
)

const keysUsage = `usage: starkgraph keys COMMAND

  create --plan NAME [--label TEXT]   create a key; the key is the last line printed
  list                                list keys (prefix, plan, label, state)
  revoke ID|PREFIX|KEY                revoke a key
  usage ID|PREFIX|KEY                 requests, 4xx and 429 answers, webhook deliveries per UTC day
  plans                               list plans`

// RunKeysCommand runs `starkgraph keys ...`; args follow "keys". db must be
// migrated.
func RunKeysCommand(ctx context.Context, db *sqlx.DB, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New(keysUsage)
	}
	s := NewStore(db)
	switch cmd, rest := args[0], args[1:]; cmd {
	case "create":
		return runCreate(ctx, s, rest, stdout)
	case "list":
		if len(rest) != 0 {
			return errors.New("usage: starkgraph keys list")
		}
		return runList(ctx, s, stdout)
	case "revoke":
		if len(rest) != 1 {
			return errors.New("usage: starkgraph keys revoke ID|PREFIX|KEY")
		}
		k, err := s.RevokeKey(ctx, rest[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Revoked key %d (%s…, plan %s) at %s.\n", k.ID, k.Prefix, k.PlanName, k.RevokedAt.UTC().Format(time.RFC3339))
		return nil
	case "usage":
		if len(rest) != 1 {
			return errors.New("usage: starkgraph keys usage ID|PREFIX|KEY")
		}
		return runUsage(ctx, s, rest[0], stdout)
	case "plans":
		return runPlans(ctx, s, stdout)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, keysUsage)
		return nil
	default:
		return fmt.Errorf("unknown keys command %q\n%s", cmd, keysUsage)
	}
}

func runCreate(ctx context.Context, s *Store, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("keys create", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	plan := fs.String("plan", "", "plan of the new key (required)")
	label := fs.String("label", "", "free text to recognise the key by")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fmt.Fprintln(stdout, "usage: starkgraph keys create --plan NAME [--label TEXT]")
		fs.PrintDefaults()
		return nil
	} else if err != nil {
		return fmt.Errorf("%w\nusage: starkgraph keys create --plan NAME [--label TEXT]", err)
	}
	if *plan == "" || fs.NArg() != 0 {
		return errors.New("usage: starkgraph keys create --plan NAME [--label TEXT]")
	}
	text, k, err := s.CreateKey(ctx, *plan, *label)
	if errors.Is(err, ErrUnknownPlan) {
		if plans, perr := s.ListPlans(ctx); perr == nil {
			names := make([]string, len(plans))
			for i, p := range plans {
				names[i] = p.Name
			}
			return fmt.Errorf("%w (plans: %s)", err, strings.Join(names, ", "))
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Created key %d on plan %s (prefix %s).\n", k.ID, k.PlanName, k.Prefix)
	fmt.Fprintln(stdout, "It is shown only this once: store it now.")
	fmt.Fprintln(stdout, text)
	return nil
}

func runList(ctx context.Context, s *Store, stdout io.Writer) error {
	keys, err := s.ListKeys(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPREFIX\tPLAN\tLABEL\tCREATED\tSTATE")
	for _, k := range keys {
		state := "active"
		if k.RevokedAt != nil {
			state = "revoked " + k.RevokedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Prefix, k.PlanName, k.Label,
			k.CreatedAt.UTC().Format(time.RFC3339), state)
	}
	return tw.Flush()
}

func runUsage(ctx context.Context, s *Store, ref string, stdout io.Writer) error {
	k, days, err := s.Usage(ctx, ref)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Key %d (%s, plan %s); counts are written every few seconds.\n", k.ID, k.Prefix, k.PlanName)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "DAY (UTC)\tREQUESTS\t4XX\t429\tWEBHOOK DELIVERIES\t")
	for _, d := range days {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", d.Day.Format("2006-01-02"), d.Requests, d.ClientErrors, d.RateLimited, d.Deliveries)
	}
	return tw.Flush()
}

func runPlans(ctx context.Context, s *Store, stdout io.Writer) error {
	plans, err := s.ListPlans(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PLAN\tRATE/S\tBURST\tDAILY\tMONTHLY\tOPERATIONS")
	for _, p := range plans {
		ops := "all"
		if p.AllowedOperations != nil {
			ops = strings.Join(p.AllowedOperations, ", ")
		}
		fmt.Fprintf(tw, "%s\t%g\t%d\t%s\t%s\t%s\n", p.Name, p.RatePerSecond, p.Burst,
			quotaText(p.DailyQuota), quotaText(p.MonthlyQuota), ops)
	}
	return tw.Flush()
}

func quotaText(q *int64) string {
	if q == nil {
		return "unlimited"
	}
	return fmt.Sprint(*q)
}

// DevKey installs the development key of `dev` mode on the "dev" plan and
// returns its text: value when given (--dev-key / STARKGRAPH_DEV_KEY), a
// fresh random key otherwise.
func DevKey(ctx context.Context, s *Store, value string) (string, error) {
	if value == "" {
		text, _, err := s.CreateKey(ctx, "dev", "development key")
		return text, err
	}
	if _, err := s.EnsureKey(ctx, value, "dev", "development key"); err != nil {
		return "", err
	}
	return value, nil
}
