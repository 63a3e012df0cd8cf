package node

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/logging"
)

// startNode starts a Node on a unix socket (no TCP port) from a config
// file holding extra, and returns it with its logger, a client and the
// config file's path.
func startNode(t *testing.T, extra string) (*Node, *logging.Logger, *redis.Client, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "sentinel.conf")
	sock := filepath.Join(dir, "s.sock")
	text := fmt.Sprintf("port 0\nunixsocket %s\n%s", sock, extra)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	level, err := logging.ParseLevel(cfg.Server.Loglevel)
	if err != nil {
		t.Fatal(err)
	}
	log, err := logging.New(logging.Options{Level: level, Writer: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	n, err := Start(cfg, Options{Log: log, LogLevel: log.LevelVar()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Stop)
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: sock, Protocol: 2, DisableIdentity: true, PoolSize: 8})
	t.Cleanup(func() { _ = c.Close() })
	return n, log, c, path
}

// configGet returns the reply of SENTINEL CONFIG GET pattern as pairs.
func configGet(t *testing.T, c *redis.Client, pattern string) map[string]string {
	t.Helper()
	v, err := c.Do(context.Background(), "SENTINEL", "CONFIG", "GET", pattern).Result()
	if err != nil {
		t.Errorf("SENTINEL CONFIG GET %s: %v", pattern, err)
		return nil
	}
	out := map[string]string{}
	switch r := v.(type) {
	case []any:
		for i := 0; i+1 < len(r); i += 2 {
			out[fmt.Sprint(r[i])] = fmt.Sprint(r[i+1])
		}
	case map[any]any:
		for k, v := range r {
			out[fmt.Sprint(k)] = fmt.Sprint(v)
		}
	default:
		t.Errorf("SENTINEL CONFIG GET %s: reply %#v", pattern, v)
	}
	return out
}

// TestLogLevelOneOwner changes the log level with SENTINEL CONFIG SET on
// several connections while others read it with SENTINEL CONFIG GET (off
// the core's loop) and every SET rewrites the config file (on the loop),
// on the 7.2 command surface (7.0's SENTINEL CONFIG has no loglevel).
// Under -race it fails if the level lives anywhere but in the logger's
// LevelVar; it also checks that GET, the logger and the rewritten file
// agree afterwards.
func TestLogLevelOneOwner(t *testing.T) {
	_, log, c, path := startNode(t, "loglevel notice\nsentinel command-surface 7.2\n")
	ctx := context.Background()
	levels := []string{"debug", "verbose", "notice", "warning", "nothing"}
	const rounds = 40
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := range rounds {
				lv := levels[(i+w)%len(levels)]
				if err := c.Do(ctx, "SENTINEL", "CONFIG", "SET", "loglevel", lv).Err(); err != nil {
					t.Errorf("SET loglevel %s: %v", lv, err)
					return
				}
			}
		})
		wg.Go(func() {
			for range rounds {
				got := configGet(t, c, "loglevel")["loglevel"]
				if !slices.Contains(levels, got) {
					t.Errorf("GET loglevel = %q", got)
					return
				}
			}
		})
	}
	wg.Wait()

	if err := c.Do(ctx, "SENTINEL", "CONFIG", "SET", "LOGLEVEL", "Warning").Err(); err != nil {
		t.Fatal(err)
	}
	if got := configGet(t, c, "loglevel")["loglevel"]; got != "warning" {
		t.Errorf("GET loglevel = %q, want warning", got)
	}
	if log.Level() != logging.LevelWarning {
		t.Errorf("logger level = %v, want warning", log.Level())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\nloglevel warning\n") {
		t.Errorf("rewritten file lacks the level:\n%s", data)
	}
	cfg, err := config.Load(path, nil)
	if err != nil || cfg.Server.Loglevel != "warning" {
		t.Errorf("reloaded loglevel = %v, %v", cfg, err)
	}
}

// TestConfigGetSetExposesRuntimeDirectives checks SENTINEL CONFIG GET/SET
// on the 7.2 command surface against the directive table: of the generic
// directives, exactly those marked runtime are read and changed, each
// enum value round-trips, and a bad value is refused without changing
// anything.
func TestConfigGetSetExposesRuntimeDirectives(t *testing.T) {
	_, _, c, path := startNode(t, "sentinel command-surface 7.2\n")
	ctx := context.Background()
	var runtime []string
	for _, d := range config.Directives() {
		got := configGet(t, c, d.Name)
		_, exposed := got[d.Name]
		if exposed != d.Runtime {
			t.Errorf("CONFIG GET %s = %v, table says runtime=%v", d.Name, got, d.Runtime)
		}
		if !d.Runtime {
			continue
		}
		runtime = append(runtime, d.Name)
		if got[d.Name] != d.Default {
			t.Errorf("CONFIG GET %s = %q at start, want the default %q", d.Name, got[d.Name], d.Default)
		}
		for _, v := range d.Values {
			if err := c.Do(ctx, "SENTINEL", "CONFIG", "SET", d.Name, strings.ToUpper(v)).Err(); err != nil {
				t.Errorf("CONFIG SET %s %s: %v", d.Name, v, err)
			}
			if got := configGet(t, c, d.Name)[d.Name]; got != v {
				t.Errorf("CONFIG GET %s = %q after SET %s", d.Name, got, v)
			}
		}
		before, _ := os.ReadFile(path)
		err := c.Do(ctx, "SENTINEL", "CONFIG", "SET", d.Name, "bogus").Err()
		want := fmt.Sprintf("ERR Invalid value 'bogus' to SENTINEL CONFIG SET '%s'", d.Name)
		if err == nil || err.Error() != want {
			t.Errorf("CONFIG SET %s bogus: %v, want %q", d.Name, err, want)
		}
		if after, _ := os.ReadFile(path); !reflect.DeepEqual(before, after) {
			t.Errorf("refused CONFIG SET rewrote the file")
		}
	}
	if !reflect.DeepEqual(runtime, []string{"loglevel"}) {
		t.Errorf("runtime directives %v, want [loglevel] (what SENTINEL CONFIG GET/SET exposes)", runtime)
	}
	// The core's own parameters are still all there with loglevel.
	all := configGet(t, c, "*")
	for _, k := range []string{"resolve-hostnames", "announce-hostnames", "announce-ip", "announce-port", "sentinel-user", "sentinel-pass", "loglevel"} {
		if _, ok := all[k]; !ok {
			t.Errorf("CONFIG GET * lacks %s: %v", k, all)
		}
	}
	if len(all) != 7 {
		t.Errorf("CONFIG GET * = %v", all)
	}
}

// TestConfigGetSetOn70 checks that on the default command surface no
// generic directive is reached by SENTINEL CONFIG GET/SET, as in
// redis-sentinel 7.0.15 (whose GET * has 6 pairs and which refuses SET
// loglevel as an unknown parameter), and that the refusal changes
// neither the logger nor the file.
func TestConfigGetSetOn70(t *testing.T) {
	_, log, c, path := startNode(t, "loglevel notice\n")
	if all := configGet(t, c, "*"); len(all) != 6 {
		t.Errorf("CONFIG GET * = %v, want the 6 core parameters", all)
	}
	if got := configGet(t, c, "loglevel"); len(got) != 0 {
		t.Errorf("CONFIG GET loglevel = %v", got)
	}
	before, _ := os.ReadFile(path)
	err := c.Do(context.Background(), "SENTINEL", "CONFIG", "SET", "loglevel", "debug").Err()
	if want := "ERR Invalid argument 'loglevel' to SENTINEL CONFIG SET"; err == nil || err.Error() != want {
		t.Errorf("CONFIG SET loglevel debug: %v, want %q", err, want)
	}
	if after, _ := os.ReadFile(path); !reflect.DeepEqual(before, after) || log.Level() != logging.LevelNotice {
		t.Errorf("refused CONFIG SET changed the file or the level (%v)", log.Level())
	}
}
