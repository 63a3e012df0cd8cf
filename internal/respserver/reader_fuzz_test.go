package respserver

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// readerSeeds are requests and malformed frames for the fuzz targets of
// the port: each kind of error Redis has, pipelines, inline quoting.
var readerSeeds = []string{
	"*1\r\n$4\r\nPING\r\n",
	"PING\r\nPING\n",
	"*3\r\n$8\r\nSENTINEL\r\n$23\r\nget-master-addr-by-name\r\n$8\r\nmymaster\r\n",
	"*3\r\n$7\r\nPUBLISH\r\n$18\r\n__sentinel__:hello\r\n$29\r\n1.2.3.4,1,x,1,mymaster,h,1,1\r\n",
	"*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nx\r\n*1\r\n$4\r\nPING\r\n*2\r\n$11\r\nUNSUBSCRIBE\r\n$1\r\nx\r\n",
	"*0\r\n*-1\r\n*1\r\n$0\r\n\r\n",
	"*9223372036854775807\r\n",
	"*1\r\n$-1\r\n",
	"*1\r\nx4\r\n",
	"*1\rX$4\r\nPINGxy",
	"PING \"a\\x41\" 'b\\'c' \"unbalanced\r\n",
	"PING\x00\r\n",
	"   \r\n\r\nHELLO 3\r\nCLIENT SETNAME x\r\nCLIENT LIST\r\nCLIENT REPLY OFF\r\nPING\r\nCLIENT REPLY ON\r\n",
	"*11\r\n",
	"*1\r\n$16385\r\n",
	"AUTH x y\r\nACL SETUSER u on nopass +@all\r\nAUTH u p\r\nACL WHOAMI\r\nRESET\r\nQUIT\r\n",
	"SENTINEL MONITOR m 127.0.0.1 6390 1\r\nSENTINEL SET m down-after-milliseconds 1000\r\nSENTINEL MASTERS\r\nSENTINEL REMOVE m\r\n",
	"HELLO 3\r\nSUBSCRIBE a b\r\nPSUBSCRIBE *\r\nPUBLISH a x\r\nPUNSUBSCRIBE\r\nINFO\r\nROLE\r\nCOMMAND DOCS ping\r\n",
}

// FuzzQueryReader checks the request reader alone: it never panics, the
// commands and the error do not depend on how the bytes are cut into
// reads (for requests under Redis's 64 KiB inline limit, where Redis's
// own outcome does not depend on it either), every command is non-empty,
// and the pending request stays within the query buffer limit plus one
// read.
func FuzzQueryReader(f *testing.F) {
	for i, s := range readerSeeds {
		f.Add([]byte(s), uint8(i), false)
	}
	f.Fuzz(func(t *testing.T, input []byte, chunk uint8, unauth bool) {
		const limit = 1024
		rd := func(src io.Reader) *requestReader {
			return newRequestReader(src, 0, 4096, func() bool { return unauth })
		}
		whole, werr := readAll(string(input), 0, rd)
		cut, cerr := readAll(string(input), int(chunk%16)+1, rd)
		mixed, merr := readMixed(string(input), int(chunk%16)+1, rd)
		if len(input) < 60000 {
			if strings.Join(whole, "\n") != strings.Join(cut, "\n") || errText(werr) != errText(cerr) {
				t.Fatalf("read whole: %q %v\nread in chunks of %d: %q %v", whole, werr, int(chunk%16)+1, cut, cerr)
			}
			if strings.Join(whole, "\n") != strings.Join(mixed, "\n") || errText(werr) != errText(merr) {
				t.Fatalf("read whole: %q %v\nwith tryNext, chunks of %d: %q %v", whole, werr, int(chunk%16)+1, mixed, merr)
			}
		}
		var pe *protocolError
		if werr != io.EOF && !errors.As(werr, &pe) {
			t.Fatalf("unexpected error %v", werr)
		}
		if pe != nil && !strings.HasPrefix(pe.Reply, "Protocol error: ") {
			t.Fatalf("error reply %q", pe.Reply)
		}

		r := newRequestReader(chunkReader{strings.NewReader(string(input)), int(chunk) + 1}, limit, 0, func() bool { return unauth })
		for {
			args, err := r.next()
			if q := r.queryBytes(); q > limit+int(chunk)+1+argOverhead {
				t.Fatalf("%d bytes pending with a limit of %d", q, limit)
			}
			if err != nil {
				break
			}
			if len(args) == 0 {
				t.Fatal("empty command returned")
			}
		}
	})
}

// readMixed is readAll with every command next returns followed by as
// many as tryNext returns (an ask group is read so), tryNext reading
// without waiting from the same source in chunks.
func readMixed(input string, chunk int, rd func(io.Reader) *requestReader) ([]string, error) {
	src := chunkReader{strings.NewReader(input), chunk}
	r := rd(src)
	r.readNow = func(p []byte) int {
		n, _ := src.Read(p)
		return n
	}
	var cmds []string
	add := func(args [][]byte) { cmds = append(cmds, commandText(args)) }
	for {
		args, err := r.next()
		if err != nil {
			return cmds, err
		}
		add(args)
		for {
			args, ok, err := r.tryNext()
			if err != nil {
				return cmds, err
			}
			if !ok {
				break
			}
			add(args)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
