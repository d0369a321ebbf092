// Command grpcpeer is a stock grpc-go peer for the Triple (gRPC over HTTP/2) interop tests: a
// server and a checking client for the Echo service of interop/grpc-go/echo.proto.
//
//	grpcpeer server PORT [--ignore-stdin]    serve Echo (and server reflection) on 127.0.0.1:PORT
//	                                         (0 = a free port), print "READY <port>", run until
//	                                         stdin reaches EOF (unless --ignore-stdin) or SIGTERM/SIGINT
//	grpcpeer client HOST:PORT [--checks A,B] run the checks against an Echo server, print
//	                                         "ok <check>" / "FAIL <check>: <why>" and
//	                                         "<n> passed, <m> failed"; exit 0 only if all passed
//	grpcpeer version                         the grpc-go and protobuf-go versions built in
//
// Everything stays on loopback: the server binds 127.0.0.1 only, and the client refuses any
// address that is not a loopback IP (or "localhost") with exit code 3 and "NON-LOOPBACK <addr>".
// Exit codes: 0 success, 1 failed checks or a server error, 2 usage, 3 non-loopback address.
package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"google.golang.org/grpc"
)

const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitNonLoopback = 3
)

const usageText = `usage:
  grpcpeer server PORT [--ignore-stdin]
  grpcpeer client HOST:PORT [--checks CHECK,...]
  grpcpeer version
checks: ` + "unary, server_stream, server_stream_many, client_stream, bidi, error, deadline, metadata, unimplemented" + `
  (default all; "server" = server_stream,server_stream_many, "client" = client_stream)`

func usage(msg string) int {
	if msg != "" {
		fmt.Fprintln(os.Stderr, "grpcpeer:", msg)
	}
	fmt.Fprintln(os.Stderr, usageText)
	return exitUsage
}

func main() {
	if len(os.Args) < 2 {
		os.Exit(usage(""))
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "server":
		os.Exit(runServer(args))
	case "client":
		os.Exit(runClient(args))
	case "version":
		printVersions()
	default:
		os.Exit(usage("unknown subcommand " + os.Args[1]))
	}
}

// printVersions names the gRPC and protobuf modules this binary was linked with, so a test log
// says which stock implementation it talked to.
func printVersions() {
	fmt.Println("grpc-go", grpc.Version)
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "google.golang.org/protobuf" {
				fmt.Println("protobuf-go", dep.Version)
			}
		}
	}
}
