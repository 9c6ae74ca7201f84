package compare

import (
	"fmt"
	"sort"
	"strings"
)

// keyf joins values into one matching key.
func keyf(parts ...any) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, "|")
}

// countBy counts records by key.
func countBy(rs []Rec, key func(Rec) string) map[string]int {
	m := map[string]int{}
	for _, r := range rs {
		m[key(r)]++
	}
	return m
}

// l1Diff is sum over keys of |ref-ours| divided by the ref total (at least 1):
// 0 when every per-key count agrees, 0.02 when 2% of the events are missing,
// extra or attributed to another key.
func l1Diff(ref, ours map[string]int) (diff float64, refN, oursN int) {
	keys := map[string]bool{}
	for k, n := range ref {
		keys[k] = true
		refN += n
	}
	for k, n := range ours {
		keys[k] = true
		oursN += n
	}
	sum := 0
	for k := range keys {
		d := ref[k] - ours[k]
		if d < 0 {
			d = -d
		}
		sum += d
	}
	return float64(sum) / float64(max(refN, 1)), refN, oursN
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func absI64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// median of xs (0 if empty); xs is reordered.
func median(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	return xs[len(xs)/2]
}
