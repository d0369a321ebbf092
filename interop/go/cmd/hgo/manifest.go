package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"time"

	hessian "github.com/apache/dubbo-go-hessian2"

	"github.com/hessianrs/interop/go/model"
)

// encodeManifest writes, for every case of interop/java's manifest.json whose values have a
// natural Go form, Go's encoding of those values (one Encoder per file, like `gen`) into
// OUTDIR/<case>.bin, and prints one line per case: "<name>\tok[\tmap-order]" or
// "<name>\tskip\t<reason>". "map-order" marks a case with a map of 2+ entries: Go iterates maps
// in random order, so its bytes differ from run to run.
//
// Canonical JSON -> Go: int -> int32, long -> int64, double -> float64, date -> time.Time,
// string -> string, binary -> []byte, untyped list -> []interface{}, untyped map ->
// map[interface{}]interface{}, typed arrays [int [long [short [double [float [boolean [string
// [date [object [[string -> []int32 []int64 []int16 []float64 []float32 []bool []string
// []time.Time []hessian.Object [][]string, User objects -> *model.User. Anything else (Java
// collection/map class names, other classes, refs) is skipped.
func encodeManifest(manifest, outDir string) error {
	raw, err := os.ReadFile(manifest)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var cases []struct {
		Name   string        `json:"name"`
		Values []interface{} `json:"values"`
	}
	if err := dec.Decode(&cases); err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	for _, c := range cases {
		conv := converter{}
		vals := make([]interface{}, 0, len(c.Values))
		for _, v := range c.Values {
			gv, err := conv.value(v)
			if err != nil {
				vals = nil
				fmt.Printf("%s\tskip\t%v\n", c.Name, err)
				break
			}
			vals = append(vals, gv)
		}
		if vals == nil {
			continue
		}
		if err := encodeTo(filepath.Join(outDir, c.Name+".bin"), vals...); err != nil {
			fmt.Printf("%s\tskip\tdubbo-go-hessian2 cannot encode it: %v\n", c.Name, err)
			continue
		}
		if conv.bigMap {
			fmt.Printf("%s\tok\tmap-order\n", c.Name)
		} else {
			fmt.Printf("%s\tok\n", c.Name)
		}
	}
	return nil
}

type converter struct {
	bigMap bool
}

func num(v interface{}) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("not a number: %v", v)
	}
	return n.Int64()
}

func (c *converter) value(v interface{}) (interface{}, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return x, nil
	case map[string]interface{}:
		return c.tagged(x)
	}
	return nil, fmt.Errorf("unexpected JSON %T", v)
}

func (c *converter) tagged(m map[string]interface{}) (interface{}, error) {
	switch {
	case m["int"] != nil:
		n, err := num(m["int"])
		return int32(n), err
	case m["long"] != nil:
		return num(m["long"])
	case m["double"] != nil:
		b, err := hex.DecodeString(m["double"].(string))
		if err != nil || len(b) != 8 {
			return nil, fmt.Errorf("bad double %v", m["double"])
		}
		var bits uint64
		for _, x := range b {
			bits = bits<<8 | uint64(x)
		}
		return math.Float64frombits(bits), nil
	case m["date"] != nil:
		n, err := num(m["date"])
		return time.UnixMilli(n), err
	case m["string"] != nil:
		return m["string"].(string), nil
	case m["binary"] != nil:
		return hex.DecodeString(m["binary"].(string))
	case m["ref"] != nil:
		return nil, fmt.Errorf("a ref (shared or circular value)")
	case m["list"] != nil:
		return c.list(m["list"].([]interface{}), m["type"])
	case m["map"] != nil:
		if m["type"] != nil {
			return nil, fmt.Errorf("typed map %v", m["type"])
		}
		entries := m["map"].([]interface{})
		if len(entries) > 1 {
			c.bigMap = true
		}
		out := make(map[interface{}]interface{}, len(entries))
		for _, e := range entries {
			kv := e.([]interface{})
			k, err := c.value(kv[0])
			if err != nil {
				return nil, err
			}
			if k != nil && !reflect.TypeOf(k).Comparable() {
				return nil, fmt.Errorf("map key %T", k)
			}
			val, err := c.value(kv[1])
			if err != nil {
				return nil, err
			}
			out[k] = val
		}
		return out, nil
	case m["object"] != nil:
		if m["object"] != model.UserClass {
			return nil, fmt.Errorf("object of class %v", m["object"])
		}
		u := &model.User{}
		for _, f := range m["fields"].([]interface{}) {
			kv := f.([]interface{})
			val, err := c.value(kv[1])
			if err != nil {
				return nil, err
			}
			switch kv[0] {
			case "created":
				if val != nil {
					u.Created = val.(time.Time)
				}
			case "active":
				u.Active = val.(bool)
			case "email":
				if val == nil {
					return nil, fmt.Errorf("null String field (Go string cannot be null)")
				}
				u.Email = val.(string)
			case "age":
				u.Age = val.(int32)
			case "name":
				if val == nil {
					return nil, fmt.Errorf("null String field (Go string cannot be null)")
				}
				u.Name = val.(string)
			case "id":
				u.ID = val.(int64)
			}
		}
		return u, nil
	}
	return nil, fmt.Errorf("unexpected value %v", m)
}

var arrayTypes = map[string]reflect.Type{
	"[int":                reflect.TypeOf([]int32{}),
	"[long":               reflect.TypeOf([]int64{}),
	"[short":              reflect.TypeOf([]int16{}),
	"[double":             reflect.TypeOf([]float64{}),
	"[float":              reflect.TypeOf([]float32{}),
	"[boolean":            reflect.TypeOf([]bool{}),
	"[string":             reflect.TypeOf([]string{}),
	"[date":               reflect.TypeOf([]time.Time{}),
	"[object":             reflect.TypeOf([]hessian.Object{}),
	"[[string":            reflect.TypeOf([][]string{}),
	"[" + model.UserClass: reflect.TypeOf([]*model.User{}),
}

func (c *converter) list(items []interface{}, typ interface{}) (interface{}, error) {
	vals := make([]interface{}, len(items))
	for i, it := range items {
		v, err := c.value(it)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	if typ == nil {
		return vals, nil
	}
	t, ok := arrayTypes[typ.(string)]
	if !ok {
		return nil, fmt.Errorf("list type %v has no Go form", typ)
	}
	out := reflect.MakeSlice(t, len(vals), len(vals))
	for i, v := range vals {
		if v == nil {
			if t.Elem().Kind() == reflect.String {
				return nil, fmt.Errorf("null in %v (Go string cannot be null)", typ)
			}
			continue
		}
		rv := reflect.ValueOf(v)
		switch {
		case rv.Type().AssignableTo(t.Elem()):
			out.Index(i).Set(rv)
		case rv.Type().ConvertibleTo(t.Elem()) && rv.Kind() != reflect.Slice && rv.Kind() != reflect.String:
			out.Index(i).Set(rv.Convert(t.Elem()))
		case rv.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Slice:
			inner := reflect.MakeSlice(t.Elem(), rv.Len(), rv.Len())
			for j := 0; j < rv.Len(); j++ {
				inner.Index(j).Set(rv.Index(j).Elem().Convert(t.Elem().Elem()))
			}
			out.Index(i).Set(inner)
		default:
			return nil, fmt.Errorf("element %T in %v", v, typ)
		}
	}
	return out.Interface(), nil
}
