package respserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/explain"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// cmdSentinelExplain is SENTINEL EXPLAIN <master-name> [TEXT|JSON|MAP], a
// go-sentinel extension: where the master stands in the SDOWN → ODOWN →
// vote → failover pipeline and why (monitor.Explanation). TEXT (the
// default) is the explanation for people as a bulk string, JSON the same
// structure as a JSON bulk string, MAP as a RESP3 map (a flat array in
// RESP2) of the JSON structure.
func cmdSentinelExplain(x *ctx) Value {
	if len(x.args) > 4 {
		return subcommandSyntaxError(x)
	}
	format := "TEXT"
	if len(x.args) == 4 {
		format = strings.ToUpper(x.arg(3))
	}
	switch format {
	case "TEXT", "JSON", "MAP":
	default:
		return Err("ERR syntax error")
	}
	var e explain.Explanation
	if _, ev := x.run(func(core monitor.Handle, now time.Time) (err error) {
		e, err = core.Explain(now, x.arg(2))
		return err
	}); ev != nil {
		return ev
	}
	if format == "TEXT" {
		return Bulk(e.Text())
	}
	data, err := json.Marshal(e)
	if err != nil {
		return Err("ERR " + err.Error())
	}
	if format == "JSON" {
		return Bulk(data)
	}
	v, err := jsonValue(json.NewDecoder(bytes.NewReader(data)))
	if err != nil {
		return Err("ERR " + err.Error())
	}
	return v
}

// jsonValue reads one JSON value from dec as a reply, keeping the order of
// object keys: objects become maps, arrays arrays, strings bulk strings,
// numbers integers (bulk strings if not integral), booleans 1 or 0, null
// the null reply.
func jsonValue(dec *json.Decoder) (Value, error) {
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := Map{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := jsonValue(dec)
				if err != nil {
					return nil, err
				}
				m = append(m, Bulk(fmt.Sprint(k)), v)
			}
			_, err := dec.Token() // '}'
			return m, err
		case '[':
			a := Array{}
			for dec.More() {
				v, err := jsonValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token() // ']'
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return Bulk(t), nil
	case json.Number:
		if n, err := t.Int64(); err == nil {
			return Int(n), nil
		}
		return Bulk(t.String()), nil
	case bool:
		if t {
			return Int(1), nil
		}
		return Int(0), nil
	case nil:
		return Null{}, nil
	}
	return nil, io.ErrUnexpectedEOF
}
