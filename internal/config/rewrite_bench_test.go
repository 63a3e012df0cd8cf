package config

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// benchPersisted is the state of a Sentinel that knows n masters, each
// with one replica and two other Sentinels, as bin/sentinel-bench scale
// sets them up.
func benchPersisted(n int) settings.Persisted {
	p := settings.Persisted{MyID: "0123456789012345678901234567890123456789", CurrentEpoch: 7}
	for i := 0; i < n; i++ {
		m := settings.NewMasterSpec(fmt.Sprintf("m%d", i), settings.Addr{Host: "127.0.0.1", Port: 10000 + i}, 2)
		m.DownAfterMs = 5000
		m.KnownReplicas = []settings.Addr{{Host: "127.0.0.1", Port: 20000 + i}}
		m.KnownSentinels = []settings.SentinelSpec{
			{Addr: settings.Addr{Host: "127.0.0.1", Port: 26380}, RunID: "1111111111111111111111111111111111111111"},
			{Addr: settings.Addr{Host: "127.0.0.1", Port: 26381}, RunID: "2222222222222222222222222222222222222222"},
		}
		p.Masters = append(p.Masters, m)
	}
	return p
}

// BenchmarkRewrite is one config write of the loop (node.Loop.persist):
// the new content from the old file, then the atomic replace with its
// two fsyncs, at 1,000 and 5,000 masters; "content" is the first half
// alone, "rewriter" the daemon's Rewriter, which reads again only the
// lines it has not read before. The file's size is reported as bytes/op.
func BenchmarkRewrite(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		p := benchPersisted(n)
		path := filepath.Join(b.TempDir(), "sentinel.conf")
		if err := Rewrite(path, DefaultServer(), p, RewriteOptions{}); err != nil {
			b.Fatal(err)
		}
		old, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("masters=%d/content", n), func(b *testing.B) {
			b.SetBytes(int64(len(old)))
			for i := 0; i < b.N; i++ {
				RewriteBytes(old, DefaultServer(), p, RewriteOptions{})
			}
		})
		b.Run(fmt.Sprintf("masters=%d/file", n), func(b *testing.B) {
			b.SetBytes(int64(len(old)))
			for i := 0; i < b.N; i++ {
				if err := Rewrite(path, DefaultServer(), p, RewriteOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("masters=%d/rewriter", n), func(b *testing.B) {
			b.SetBytes(int64(len(old)))
			r := Rewriter{Path: path}
			for i := 0; i < b.N; i++ {
				if err := r.Rewrite(DefaultServer(), p, RewriteOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
