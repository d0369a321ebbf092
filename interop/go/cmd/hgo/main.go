// Command hgo encodes and decodes the interop values with dubbo-go-hessian2.
//
//	hgo encode-mix [--self-ref] OUT     Go's encoding of Cases.mix(false) (or mix(true))
//	hgo encode-user [--defaults] OUT    Go's encoding of Cases.user(1, "Alice") (or new User())
//	hgo decode FILE                     decode every value of FILE, print one line per value
//	hgo roundtrip IN OUT                decode every value of IN, re-encode them with one Encoder
//	hgo encode-manifest MANIFEST OUTDIR Go's encoding of every case of interop/java's manifest.json
//	                                    that has a natural Go form (see manifest.go)
//	hgo version                         the dubbo-go-hessian2 version this binary was built with
package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	hessian "github.com/apache/dubbo-go-hessian2"

	"github.com/hessianrs/interop/go/model"
)

func usage() {
	fmt.Fprintln(os.Stderr, `usage:
  hgo encode-mix [--self-ref] OUT
  hgo encode-user [--defaults] OUT
  hgo decode FILE
  hgo roundtrip IN OUT
  hgo encode-manifest MANIFEST OUTDIR
  hgo version`)
	os.Exit(2)
}

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		usage()
	}
	cmd, args := args[0], args[1:]
	var err error
	switch cmd {
	case "encode-mix":
		selfRef, rest := flag(args, "--self-ref")
		if len(rest) != 1 {
			usage()
		}
		err = encodeTo(rest[0], model.NewMix(selfRef))
	case "encode-user":
		defaults, rest := flag(args, "--defaults")
		if len(rest) != 1 {
			usage()
		}
		u := model.Alice()
		if defaults {
			u = &model.User{}
		}
		err = encodeTo(rest[0], u)
	case "decode":
		if len(args) != 1 {
			usage()
		}
		var vals []interface{}
		vals, err = decodeFile(args[0])
		for _, v := range vals {
			fmt.Println(show(v))
		}
	case "roundtrip":
		if len(args) != 2 {
			usage()
		}
		var vals []interface{}
		if vals, err = decodeFile(args[0]); err == nil {
			err = encodeTo(args[1], vals...)
		}
	case "encode-manifest":
		if len(args) != 2 {
			usage()
		}
		err = encodeManifest(args[0], args[1])
	case "version":
		fmt.Println(libVersion())
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "hgo %s: %v\n", cmd, err)
		os.Exit(1)
	}
}

func flag(args []string, name string) (bool, []string) {
	var rest []string
	found := false
	for _, a := range args {
		if a == name {
			found = true
		} else {
			rest = append(rest, a)
		}
	}
	return found, rest
}

// libVersion reports the dubbo-go-hessian2 module version and the Go version.
func libVersion() string {
	v := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/apache/dubbo-go-hessian2" {
				v = d.Version
			}
		}
	}
	return "github.com/apache/dubbo-go-hessian2 " + v + " " + runtime.Version()
}

// encodeTo writes the values with ONE Encoder (class definitions and refs are per stream,
// as for Java's Hessian2Output).
func encodeTo(path string, vals ...interface{}) error {
	e := hessian.NewEncoder()
	for _, v := range vals {
		if err := e.Encode(v); err != nil {
			return err
		}
	}
	return os.WriteFile(path, e.Buffer(), 0o644)
}

// decodeFile reads top-level values until the input is used up. dubbo-go-hessian2's
// Decoder keeps class definitions and refs across Decode calls, like Hessian2Input.
func decodeFile(path string) ([]interface{}, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// A read buffer as large as the input: Buffered() is then exactly the unread rest.
	d := hessian.NewDecoderSize(b, max(len(b), 16))
	var vals []interface{}
	for len(vals) == 0 || d.Buffered() > 0 {
		v, err := d.Decode()
		if err != nil {
			return vals, fmt.Errorf("value #%d: %w", len(vals), err)
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		return nil, errors.New("no value in input")
	}
	return vals, nil
}

// show renders a decoded value in one line: Go type names for objects, maps with sorted
// keys, dates as UTC with milliseconds, doubles with their bits when not integral, and
// "<cycle *T>" for a pointer already being printed.
func show(v interface{}) string {
	var sb strings.Builder
	p := printer{sb: &sb, onPath: map[uintptr]bool{}}
	p.value(reflect.ValueOf(v))
	return sb.String()
}

type printer struct {
	sb     *strings.Builder
	onPath map[uintptr]bool
}

// enter marks a pointer, map or non-empty slice as being printed; false if it already is
// (a cycle, e.g. a list or map that contains itself).
func (p printer) enter(v reflect.Value) bool {
	if v.Kind() == reflect.Slice && v.Len() == 0 {
		return true
	}
	addr := v.Pointer()
	if p.onPath[addr] {
		return false
	}
	p.onPath[addr] = true
	return true
}

func (p printer) leave(v reflect.Value) {
	if v.Kind() == reflect.Slice && v.Len() == 0 {
		return
	}
	delete(p.onPath, v.Pointer())
}

func (p printer) value(v reflect.Value) {
	sb := p.sb
	if !v.IsValid() {
		sb.WriteString("null")
		return
	}
	if t, ok := v.Interface().(time.Time); ok {
		if t.IsZero() {
			sb.WriteString("date(zero)")
		} else {
			fmt.Fprintf(sb, "date(%d=%s)", t.UnixMilli(), t.UTC().Format("2006-01-02T15:04:05.000Z"))
		}
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			sb.WriteString("null")
			return
		}
		p.value(v.Elem())
	case reflect.Ptr:
		if v.IsNil() {
			sb.WriteString("null")
			return
		}
		if !p.enter(v) {
			fmt.Fprintf(sb, "<cycle %s>", v.Type())
			return
		}
		sb.WriteString("&")
		p.value(v.Elem())
		p.leave(v)
	case reflect.Bool:
		fmt.Fprintf(sb, "%v", v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		fmt.Fprintf(sb, "%s(%d)", v.Type(), v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		fmt.Fprintf(sb, "%s(%d)", v.Type(), v.Uint())
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		fmt.Fprintf(sb, "%s(%s)", v.Type(), strconv.FormatFloat(f, 'g', -1, 64))
		if f != math.Trunc(f) {
			fmt.Fprintf(sb, "[%016x]", math.Float64bits(f))
		}
	case reflect.String:
		sb.WriteString(strconv.Quote(v.String()))
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			fmt.Fprintf(sb, "%s(nil)", v.Type())
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			fmt.Fprintf(sb, "binary(%x)", v.Bytes())
			return
		}
		if v.Kind() == reflect.Slice {
			if !p.enter(v) {
				fmt.Fprintf(sb, "<cycle %s>", v.Type())
				return
			}
			defer p.leave(v)
		}
		fmt.Fprintf(sb, "%s[", v.Type())
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			p.value(v.Index(i))
		}
		sb.WriteString("]")
	case reflect.Map:
		if v.IsNil() {
			fmt.Fprintf(sb, "%s(nil)", v.Type())
			return
		}
		if !p.enter(v) {
			fmt.Fprintf(sb, "<cycle %s>", v.Type())
			return
		}
		defer p.leave(v)
		keys := v.MapKeys()
		ks := make([]string, len(keys))
		for i, k := range keys {
			ks[i] = show(k.Interface())
		}
		idx := make([]int, len(keys))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return ks[idx[a]] < ks[idx[b]] })
		fmt.Fprintf(sb, "%s{", v.Type())
		for n, i := range idx {
			if n > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(ks[i])
			sb.WriteString(": ")
			p.value(v.MapIndex(keys[i]))
		}
		sb.WriteString("}")
	case reflect.Struct:
		fmt.Fprintf(sb, "%s{", v.Type())
		for i := 0; i < v.NumField(); i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(v.Type().Field(i).Name)
			sb.WriteString(": ")
			if v.Type().Field(i).IsExported() {
				p.value(v.Field(i))
			} else {
				sb.WriteString("?")
			}
		}
		sb.WriteString("}")
	default:
		fmt.Fprintf(sb, "%v", v.Interface())
	}
}
