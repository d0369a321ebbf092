module github.com/hessianrs/benches/peers/go

go 1.22

require (
	github.com/apache/dubbo-go-hessian2 v1.13.2
	github.com/hessianrs/interop/go v0.0.0
)

require (
	github.com/dubbogo/gost v1.13.1 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	go.uber.org/atomic v1.9.0 // indirect
)

replace github.com/hessianrs/interop/go => ../../../interop/go
