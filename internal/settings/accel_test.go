package settings

import "testing"

// TestAccelScaled checks the budget of the fast periods: full speed up to
// Budget masters in trouble, then slower in proportion, never slower than
// Redis's period.
func TestAccelScaled(t *testing.T) {
	a := Accel{Budget: 10}
	for _, tt := range []struct {
		fast, slow int64
		troubled   int
		want       int64
	}{
		{100, 1000, 0, 100},
		{100, 1000, 10, 100},
		{100, 1000, 20, 200},
		{100, 1000, 55, 550},
		{100, 1000, 300, 1000},
		{25, 1000, 100, 250},
		{20, 100, 300, 100},
	} {
		if got := a.Scaled(tt.fast, tt.slow, tt.troubled); got != tt.want {
			t.Errorf("Scaled(%d, %d, %d) = %d, want %d", tt.fast, tt.slow, tt.troubled, got, tt.want)
		}
	}
	if got := (Accel{}).Scaled(100, 1000, 300); got != 100 {
		t.Errorf("no budget: Scaled = %d, want 100", got)
	}
}
