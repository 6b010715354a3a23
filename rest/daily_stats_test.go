package rest

import (
	"fmt"
	"testing"
	"time"
)

func TestDailyStats(t *testing.T) {
	e := newEnv(t)
	// Before the indexer kept any: empty, not an error.
	if body := e.mustGet("/beta/daily-stats").(map[string]any); len(body["items"].([]any)) != 0 {
		t.Errorf("no rows yet: %v", body)
	}
	if body := e.mustGet("/beta/daily-stats/today").(map[string]any); body["blocks"] != 0.0 || body["hours"] != 24.0 {
		t.Errorf("no rows yet, today: %v", body)
	}

	head := baseTime + nBlocks*10
	today, thisHour := head/86400*86400, head/3600*3600
	for d := int64(0); d < 40; d++ { // 40 days up to the head's day: day d back has d+1 blocks
		if _, err := e.db.Exec(`INSERT INTO activity_stats (granularity, starts_at, blocks, transactions, fees_wei)
			VALUES ('d', $1, $2, $3, $4)`, today-d*86400, d+1, 10*(d+1), fmt.Sprint(1000*(d+1))); err != nil {
			t.Fatal(err)
		}
	}
	for h := int64(0); h < 30; h++ { // 30 hours: hour h back has h+1 blocks
		if _, err := e.db.Exec(`INSERT INTO activity_stats (granularity, starts_at, blocks, events) VALUES ('h', $1, $2, 7)`,
			thisHour-h*3600, h+1); err != nil {
			t.Fatal(err)
		}
	}
	date := func(back int64) string { return time.Unix(today-back*86400, 0).UTC().Format(time.DateOnly) }

	// A month: 30 days on two pages of 25, newest first, each with every metric.
	var dates []string
	for p := 1; p <= 2; p++ {
		body := e.mustGet(fmt.Sprintf("/beta/daily-stats?p=%d", p)).(map[string]any)
		if body["lastPage"] != 2.0 {
			t.Errorf("page %d: lastPage %v", p, body["lastPage"])
		}
		for _, it := range body["items"].([]any) {
			d := it.(map[string]any)
			back := int64(len(dates))
			dates = append(dates, d["date"].(string))
			if d["date"] != date(back) || d["blocks"] != float64(back+1) || d["transactions"] != float64(10*(back+1)) ||
				d["feesWei"] != fmt.Sprint(1000*(back+1)) || d["feesFri"] != "0" || d["events"] != 0.0 {
				t.Errorf("day %d back: %v", back, d)
			}
		}
	}
	if len(dates) != 30 {
		t.Errorf("a month has %d days: %v", len(dates), dates)
	}
	for tr, n := range map[string]int{"1d": 1, "1w": 7, "1y": 40, "max": 40} {
		if items := e.mustGet("/beta/daily-stats?ps=100&timerange=" + tr).(map[string]any)["items"].([]any); len(items) != n {
			t.Errorf("timerange %s: %d days, want %d", tr, len(items), n)
		}
	}

	// One metric, in any case: each item has the date and it.
	for q, key := range map[string]string{"metrics=feesWei": "feesWei", "metrics=BLOCKS": "blocks"} {
		first := e.mustGet("/beta/daily-stats?" + q).(map[string]any)["items"].([]any)[0].(map[string]any)
		if len(first) != 2 || first["date"] != date(0) || first[key] == nil {
			t.Errorf("%s: %v", q, first)
		}
	}

	// The last hours, summed from the hour rows up to the head's hour.
	for q, want := range map[string]struct{ hours, blocks int }{"hours=1h": {1, 1}, "hours=4h": {4, 10}, "": {24, 300}} {
		body := e.mustGet("/beta/daily-stats/today?" + q).(map[string]any)
		from := thisHour - int64(want.hours-1)*3600
		if body["hours"] != float64(want.hours) || body["blocks"] != float64(want.blocks) || body["events"] != float64(7*want.hours) ||
			body["from"] != float64(from) || body["to"] != float64(thisHour+3599) {
			t.Errorf("%q: %v, want %d blocks from %d", q, body, want.blocks, from)
		}
	}

	e.expectRefusals(t, []refusal{
		{"/beta/daily-stats?metrics=bogus", 400, "metrics"},
		{"/beta/daily-stats?timerange=2w", 400, "timerange"},
		{"/beta/daily-stats?ps=3", 400, "ps"},
		{"/beta/daily-stats/today?hours=2h", 400, "hours"},
	})
}
