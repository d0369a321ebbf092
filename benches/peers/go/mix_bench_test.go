// Benchmarks of dubbo-go-hessian2 on the seed article's Mix struct and on the User POJO,
// written like the article's (and the library's own object_test.go) benchmarks:
//
//	encode: hessian.NewEncoder(); Encode(v); Buffer()        (encodeTarget in the library's tests)
//	decode: hessian.NewDecoder(bytes).Decode()               (bytes = Go's own encoding of v)
//
// Run: go test -run '^$' -bench . -benchmem
package peers

import (
	"reflect"
	"testing"
	"time"

	hessian "github.com/apache/dubbo-go-hessian2"

	"github.com/hessianrs/interop/go/model"
)

var sink interface{}

func encodeTarget(v interface{}) ([]byte, error) {
	e := hessian.NewEncoder()
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return e.Buffer(), nil
}

// mustRoundTrip encodes v once and checks that decoding gives a value equal to v
// (reflect.DeepEqual follows the Mix -> D["m"] -> Mix cycle).
func mustRoundTrip(b *testing.B, v interface{}) []byte {
	b.Helper()
	bs, err := encodeTarget(v)
	if err != nil {
		b.Fatal(err)
	}
	got, err := hessian.NewDecoder(bs).Decode()
	if err != nil {
		b.Fatal(err)
	}
	if !reflect.DeepEqual(got, v) {
		b.Fatalf("decode(encode(v)) != v:\n got %#v\nwant %#v", got, v)
	}
	return bs
}

func benchEncode(b *testing.B, v interface{}) {
	mustRoundTrip(b, v)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bs, err := encodeTarget(v)
		if err != nil {
			b.Fatal(err)
		}
		sink = bs
	}
}

func benchDecode(b *testing.B, v interface{}) {
	bs := mustRoundTrip(b, v)
	b.SetBytes(int64(len(bs)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, err := hessian.NewDecoder(bs).Decode()
		if err != nil {
			b.Fatal(err)
		}
		sink = got
	}
}

// Mix = interop/java Cases.mix(true) = hessian2/tests/vectors/lite3/mix_self_ref.bin:
// A='a', B="hello", CA=Date(1700000000000), CB=1<<40, CC="world", CD={1,2,3},
// D={"floats": CD, "A": 97, "m": <the Mix itself>} (a real cycle: D["m"] is the same *Mix).
func BenchmarkEncodeMix(b *testing.B) { benchEncode(b, model.NewMix(true)) }
func BenchmarkDecodeMix(b *testing.B) { benchDecode(b, model.NewMix(true)) }

// User = Cases.user(1, "Alice") = pojo_user.bin.
func BenchmarkEncodeUser(b *testing.B) { benchEncode(b, model.Alice()) }
func BenchmarkDecodeUser(b *testing.B) { benchDecode(b, model.Alice()) }

// SeedMix is the article's struct verbatim (dubbo-go-hessian2's object_test.go): A is a Go
// int (written as a Hessian long), CA/CB/CC are left zero (CA is written as null), and
// D["m"] = m stores a *copy* of m taken before D was assigned (so a second Mix object with
// D == nil, not a reference). Only for comparison with the article's numbers.
type SeedMix struct {
	A  int
	B  string
	CA time.Time
	CB int64
	CC string
	CD []float64
	D  map[string]interface{}
}

func (SeedMix) JavaClassName() string { return "test.mix" }

func init() { hessian.RegisterPOJO(new(SeedMix)) }

func seedMix() *SeedMix {
	m := SeedMix{A: int('a'), B: `hello`}
	m.CD = []float64{1, 2, 3}
	m.D = map[string]interface{}{`floats`: m.CD, `A`: m.A, `m`: m}
	return &m
}

func BenchmarkEncodeMixSeed(b *testing.B) {
	m := seedMix()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		bs, err := encodeTarget(m)
		if err != nil {
			b.Fatal(err)
		}
		sink = bs
	}
}

func BenchmarkDecodeMixSeed(b *testing.B) {
	bs, err := encodeTarget(seedMix())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, err := hessian.NewDecoder(bs).Decode()
		if err != nil {
			b.Fatal(err)
		}
		sink = got
	}
}
