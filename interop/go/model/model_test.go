package model_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	hessian "github.com/apache/dubbo-go-hessian2"

	"github.com/hessianrs/interop/go/model"
)

var gens = []string{"lite3", "lite4"}

func vector(t *testing.T, gen, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "hessian2", "tests", "vectors", gen, name+".bin"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func encode(t *testing.T, v interface{}) []byte {
	t.Helper()
	e := hessian.NewEncoder()
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return e.Buffer()
}

// dubbo-go-hessian2 decodes Java's Mix and User into the Go structs, cycle included.
func TestDecodeJavaVectors(t *testing.T) {
	cases := map[string]interface{}{
		"mix_self_ref":    model.NewMix(true),
		"mix_no_self_ref": model.NewMix(false),
		"pojo_user":       model.Alice(),
	}
	for _, gen := range gens {
		for name, want := range cases {
			got, err := hessian.NewDecoder(vector(t, gen, name)).Decode()
			if err != nil {
				t.Fatalf("%s/%s: %v", gen, name, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s/%s: got %#v, want %#v", gen, name, got, want)
			}
			if m, ok := got.(*model.Mix); ok && name == "mix_self_ref" && m.D["m"] != m {
				t.Errorf("%s/%s: D[\"m\"] is not the Mix itself", gen, name)
			}
		}
	}
}

// A User with every field set is byte-identical with Java.
func TestEncodeUserIsJavaBytes(t *testing.T) {
	for _, gen := range gens {
		if got, want := encode(t, model.Alice()), vector(t, gen, "pojo_user"); !bytes.Equal(got, want) {
			t.Errorf("%s: go %x\njava %x", gen, got, want)
		}
	}
}

// new User(): Java writes N for the null Strings name/email, Go writes "" (0x00): the only difference.
func TestEncodeUserDefaultsDiffersOnlyInNullStrings(t *testing.T) {
	want := vector(t, "lite3", "pojo_user_defaults")
	got := encode(t, &model.User{})
	// ... `N F N 0x90 N 0xe0` (created, active, email, age, name, id) in Java
	patched := bytes.Replace(got, []byte{'N', 'F', 0x00, 0x90, 0x00, 0xe0}, []byte{'N', 'F', 'N', 0x90, 'N', 0xe0}, 1)
	if !bytes.Equal(patched, want) {
		t.Errorf("go %x\njava %x", got, want)
	}
}

// Mix: Go's bytes differ from Java's only in (1) the list header of the double[] (Go: 'V' type
// int-length, Java: compact 0x73 type) and (2) the order of D's entries (Go: random map order,
// Java: HashMap order A, floats, m).
func TestEncodeMixDiffersOnlyInListHeaderAndMapOrder(t *testing.T) {
	typ := append([]byte{0x07}, "[double"...)
	goList := append(append([]byte{'V'}, typ...), 0x93)
	javaList := append([]byte{0x73}, typ...)
	entA := []byte{0x01, 'A', 0xc8, 0x61}
	entFloats := append(append(append([]byte{0x06}, "floats"...), javaList...), 0x5c, 0x5d, 0x02, 0x5d, 0x03)
	entM := []byte{0x01, 'm', 0x51, 0x90}
	for _, self := range []bool{false, true} {
		name := "mix_no_self_ref"
		entries := [][]byte{entA, entFloats}
		if self {
			name = "mix_self_ref"
			entries = append(entries, entM)
		}
		want := vector(t, "lite3", name)
		javaMap := bytes.Join(entries, nil)
		if !bytes.Contains(want, javaMap) {
			t.Fatalf("%s: expected map body %x in Java's bytes", name, javaMap)
		}
		for i := 0; i < 20; i++ { // Go's map order is random: try several encodings
			got := bytes.Replace(encode(t, model.NewMix(self)), goList, javaList, 1)
			// put Go's entries into Java's order
			start := bytes.IndexByte(got, 'H') + 1
			end := start + len(javaMap)
			if end > len(got) || !sameEntries(got[start:end], entries) {
				t.Fatalf("%s: go map body %x is not a permutation of %x", name, got[start:min(end, len(got))], javaMap)
			}
			fixed := append(append(append([]byte{}, got[:start]...), javaMap...), got[end:]...)
			if !bytes.Equal(fixed, want) {
				t.Fatalf("%s: go (normalised) %x\njava %x", name, fixed, want)
			}
		}
	}
}

func sameEntries(body []byte, entries [][]byte) bool {
	for len(body) > 0 {
		found := false
		for _, e := range entries {
			if bytes.HasPrefix(body, e) {
				body = body[len(e):]
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
