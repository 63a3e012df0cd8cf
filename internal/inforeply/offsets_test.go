package inforeply

import (
	"reflect"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

func TestParseOffsets(t *testing.T) {
	text := "# Replication\r\nrole:master\r\nconnected_slaves:3\r\n" +
		"slave0:ip=127.0.0.1,port=6380,state=online,offset=1234,lag=0\r\n" +
		"slave1:ip=::1,port=6381,state=wait_bgsave,offset=0,lag=1\r\n" +
		"slave2:ip=10.0.0.9,port=6382,state=online,offset=x,lag=0\r\n" +
		"slave3:10.0.0.8,6383,online\r\n" +
		"master_repl_offset:2000\r\n"
	want := Offsets{Master: 2000, HasMaster: true, Replicas: []ReplicaOffset{
		{settings.Addr{Host: "127.0.0.1", Port: 6380}, 1234},
		{settings.Addr{Host: "::1", Port: 6381}, 0},
	}}
	if got := ParseOffsets(text); !reflect.DeepEqual(got, want) {
		t.Errorf("ParseOffsets = %+v, want %+v", got, want)
	}
	if got := ParseOffsets("role:master\r\nmaster_repl_offset:abc\r\n"); got.HasMaster {
		t.Errorf("a bad master_repl_offset read as %d", got.Master)
	}
}
