module github.com/hessianrs/interop/go

go 1.22

require github.com/apache/dubbo-go-hessian2 v1.13.2

require (
	github.com/dubbogo/gost v1.13.1 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	go.uber.org/atomic v1.9.0 // indirect
)
