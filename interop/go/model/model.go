// Package model holds the Go twins of the Java POJOs in interop/java
// (io.github.hessianrs.interop.model.Mix and .User) and the canonical values
// that interop/java's Cases.java writes into hessian2/tests/vectors/lite3/.
//
// dubbo-go-hessian2 writes struct fields in Go declaration order and names them
// with the `hessian` tag, so the fields are declared in hessian-lite's
// JavaSerializer order (compound fields, then primitive/java.lang fields, each in
// reverse declaration order): Mix = D, CD, CA, CC, CB, B, A and
// User = created, active, email, age, name, id.
package model

import (
	"time"

	hessian "github.com/apache/dubbo-go-hessian2"
)

const (
	MixClass  = "io.github.hessianrs.interop.model.Mix"
	UserClass = "io.github.hessianrs.interop.model.User"
)

// Mix is the struct of the seed article's benchmark, typed like the Java class
// (`int A; String B; Date CA; long CB; String CC; double[] CD; Map<String,Object> D`).
// The seed declares `A int`; a Go `int` is written as a Hessian long, which Java cannot
// put into an `int` field, so A is an int32 here.
type Mix struct {
	D  map[string]interface{} `hessian:"D"`
	CD []float64              `hessian:"CD"`
	CA time.Time              `hessian:"CA"`
	CC string                 `hessian:"CC"`
	CB int64                  `hessian:"CB"`
	B  string                 `hessian:"B"`
	A  int32                  `hessian:"A"`
}

func (*Mix) JavaClassName() string { return MixClass }

// User is interop/java's User POJO (`long id; String name; int age; String email;
// boolean active; Date created`). Go strings cannot be null: a zero User writes ""
// where Java writes N (see UserNullable).
type User struct {
	Created time.Time `hessian:"created"`
	Active  bool      `hessian:"active"`
	Email   string    `hessian:"email"`
	Age     int32     `hessian:"age"`
	Name    string    `hessian:"name"`
	ID      int64     `hessian:"id"`
}

func (*User) JavaClassName() string { return UserClass }

func init() {
	hessian.RegisterPOJO(&Mix{})
	hessian.RegisterPOJO(&User{})
}

// Epoch1700 is new Date(1700000000000L), in time.Local like the times dubbo-go-hessian2
// decodes (so reflect.DeepEqual holds after a round trip).
var Epoch1700 = time.UnixMilli(1700000000000)

// NewMix returns Cases.mix(selfRef): A='a', B="hello", CA=Date(1700000000000),
// CB=1<<40, CC="world", CD={1,2,3}, D={"floats": CD, "A": 97} (+ "m": the Mix itself).
// The self reference is a real cycle through the pointer, as in Java (the seed
// article's `"m": m` stores a *copy* of m whose D is still nil).
func NewMix(selfRef bool) *Mix {
	m := &Mix{A: 'a', B: "hello", CA: Epoch1700, CB: 1 << 40, CC: "world"}
	m.CD = []float64{1, 2, 3}
	m.D = map[string]interface{}{"floats": m.CD, "A": m.A}
	if selfRef {
		m.D["m"] = m
	}
	return m
}

// NewUser returns Cases.user(id, name).
func NewUser(id int64, name string, email string) *User {
	return &User{
		ID:      id,
		Name:    name,
		Age:     int32(30 + id),
		Email:   email,
		Active:  id%2 == 1,
		Created: time.UnixMilli(1700000000000 + id*60000),
	}
}

// Alice is the value of pojo_user.bin: user(1, "Alice").
func Alice() *User { return NewUser(1, "Alice", "alice@example.com") }
