package compare

import (
	"fmt"
	"strconv"
)

// User annotations (gotraced issue 5): runtime/trace tasks, regions and logs
// (runtime/traceruntime.go trace_userTaskCreate, trace_userTaskEnd,
// trace_userRegion, trace_userLog). Both files come from the same run, so the
// runtime/trace package handed out the same task ids (annotation.go newID)
// and the goroutines have the same ids. Checked, each class separately: every
// REF record in the window has an OURS record with the same key and on the
// same goroutine, and OURS has no extra one (match figure 1.0):
//   - task begins: id, parent id, type;
//   - task ends: id (not the type the reader attaches from the begin: a
//     flight-recorder window can hold the end without the begin);
//   - region begins and ends: task id, region type;
//   - logs: task id, category, message.
// Paired records (same key and goroutine, in time order) also go to the
// stacks figure ("user ..." classes).

// userKeyG is the identity of an annotation: its key and its goroutine.
func userKeyG(r Rec) string { return strconv.FormatInt(r.G, 10) + "|" + r.Key }

func (c *cmp) user() {
	for _, k := range []struct {
		class, short string
		a, b         []Rec
	}{
		{"user task begins (id, parent, type, goroutine)", "user task", c.ref.Tasks, c.ours.Tasks},
		{"user task ends (id, goroutine)", "user task end", c.ref.TaskEnds, c.ours.TaskEnds},
		{"user region begins (task, type, goroutine)", "user region", c.ref.Regions, c.ours.Regions},
		{"user region ends (task, type, goroutine)", "user region end", c.ref.RegionEnds, c.ours.RegionEnds},
		{"user logs (task, category, message, goroutine)", "user log", c.ref.Logs, c.ours.Logs},
	} {
		a, b := c.filter(k.a), c.filter(k.b)
		row := Row{Class: k.class, Kind: "match", Ref: len(a), Ours: len(b), Limit: 1, Checked: true}
		byKey := map[string][]Rec{}
		for _, r := range b {
			byKey[userKeyG(r)] = append(byKey[userKeyG(r)], r)
		}
		shown := 0
		for _, r := range a {
			key := userKeyG(r)
			if xs := byKey[key]; len(xs) > 0 {
				row.Matched++
				c.stackPairs = append(c.stackPairs, stackPair{class: k.short, a: r, b: xs[0]})
				byKey[key] = xs[1:]
				continue
			}
			row.RefOnly++
			if shown < 3 {
				shown++
				c.rep.example("%s: ref has g%d %q at %d ns, ours has none", k.class, r.G, r.Key, r.T)
			}
		}
		for key, xs := range byKey {
			row.OursOnly += len(xs)
			if len(xs) > 0 && shown < 3 {
				shown++
				c.rep.example("%s: ours has %d extra %q", k.class, len(xs), key)
			}
		}
		row.Figure = ratio(row.Matched, row.Ref+row.OursOnly)
		if row.Ref+row.Ours > 0 {
			row.Note = fmt.Sprintf("%d matched", row.Matched)
		}
		c.addRow(row)
	}
}
