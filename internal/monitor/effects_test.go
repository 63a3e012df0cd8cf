package monitor

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// allActions holds one value of every action type. TestApplyHandlesEveryAction
// checks it against the package source, so a new action type that is not
// listed here (and so not dispatched by Apply) fails the test.
var allActions = []msg.Action{
	msg.PersistConfig{}, msg.Exit{}, msg.OpenLink{}, msg.CloseLink{}, msg.Send{}, msg.StartScript{}, msg.KillScript{},
}

// recorder is an Effects that records the name of every method called.
type recorder struct{ calls []string }

func (r *recorder) Log(event.LogLine) { r.calls = append(r.calls, "Log") }
func (r *recorder) Event(event.Event) { r.calls = append(r.calls, "Event") }
func (r *recorder) Persist(msg.PersistConfig) error {
	r.calls = append(r.calls, "PersistConfig")
	return nil
}
func (r *recorder) OpenLink(msg.OpenLink)       { r.calls = append(r.calls, "OpenLink") }
func (r *recorder) CloseLink(msg.CloseLink)     { r.calls = append(r.calls, "CloseLink") }
func (r *recorder) Send(msg.Send)               { r.calls = append(r.calls, "Send") }
func (r *recorder) StartScript(msg.StartScript) { r.calls = append(r.calls, "StartScript") }
func (r *recorder) KillScript(msg.KillScript)   { r.calls = append(r.calls, "KillScript") }
func (r *recorder) Exit(msg.Exit)               { r.calls = append(r.calls, "Exit") }

// actionTypes lists the types declared in internal/msg's non-test files
// that have an isAction method.
func actionTypes(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	const dir = "../msg"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "isAction" {
				continue
			}
			if id, ok := fn.Recv.List[0].Type.(*ast.Ident); ok {
				names = append(names, id.Name)
			}
		}
	}
	sort.Strings(names)
	return names
}

func TestApplyHandlesEveryAction(t *testing.T) {
	var listed []string
	for _, a := range allActions {
		listed = append(listed, reflect.TypeOf(a).Name())
	}
	sort.Strings(listed)
	if got := actionTypes(t); !reflect.DeepEqual(got, listed) {
		t.Fatalf("action types in the source %v, listed in allActions %v: add the new type to allActions, Apply and Effects", got, listed)
	}
	for _, a := range allActions {
		var r recorder
		if _, err := Apply(msg.Ready{Actions: []msg.Action{a}}, &r); err != nil {
			t.Fatalf("Apply(%T): %v", a, err)
		}
		want := reflect.TypeOf(a).Name()
		if len(r.calls) != 1 || r.calls[0] != want {
			t.Errorf("Apply(%T) called %v, want [%s]", a, r.calls, want)
		}
	}
}

// strayAction is an Action of a type Apply has no case for (it embeds
// the interface to get its unexported marker).
type strayAction struct{ msg.Action }

func TestApplyRejectsUnknownAction(t *testing.T) {
	var r recorder
	if _, err := Apply(msg.Ready{Actions: []msg.Action{strayAction{}}}, &r); !errors.Is(err, ErrUnknownAction) {
		t.Fatalf("Apply(strayAction) = %v, want ErrUnknownAction", err)
	}
}

// TestApplyOrder checks the order Apply promises: persist, then logs and
// events, then the actions up to an Exit, nothing after it.
func TestApplyOrder(t *testing.T) {
	var r recorder
	rd := msg.Ready{
		Logs:    []event.LogLine{{Text: "a"}, {Text: "+x", Event: &event.Event{Type: "+x"}}},
		Actions: []msg.Action{msg.Send{}, msg.PersistConfig{}, msg.Exit{}, msg.OpenLink{}},
	}
	if _, err := Apply(rd, &r); err != nil {
		t.Fatal(err)
	}
	want := []string{"PersistConfig", "Log", "Log", "Event", "Send", "Exit"}
	if !reflect.DeepEqual(r.calls, want) {
		t.Fatalf("calls %v, want %v", r.calls, want)
	}
}

// TestNothingAfterSimulatedCrash: once SIMULATE-FAILURE crashed the core,
// the Ready ends with the Exit and nothing more ever comes out, as Redis
// exits on the spot.
func TestNothingAfterSimulatedCrash(t *testing.T) {
	p := settings.Persisted{MyID: strings.Repeat("c", 40), Masters: []settings.MasterSpec{settings.NewMasterSpec("m", settings.Addr{Host: "127.0.0.1", Port: 6379}, 1)}}
	s := New(p, Options{}, rand.New(rand.NewSource(1)), t0)
	s.Ready()
	s.out.crash()
	s.event(event.LevelWarning, "+after", nil, "")
	s.out.persist("after")
	r := s.Ready()
	if n := len(r.Actions); n != 1 {
		t.Fatalf("actions %#v, want only the Exit", r.Actions)
	}
	if _, ok := r.Actions[0].(msg.Exit); !ok || len(r.Events()) != 0 {
		t.Fatalf("ready %#v", r)
	}
	s.Tick(t0.Add(time.Second), t0.Add(time.Second))
	if r := s.Ready(); !r.Empty() {
		t.Fatalf("output after the crash: %#v", r)
	}
}
