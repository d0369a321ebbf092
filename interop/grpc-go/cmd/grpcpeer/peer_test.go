package main

import (
	"context"
	"net"
	"slices"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/hessianrs/interop/grpc-go/echo"
)

// Every check of the client passes against the server, over a real loopback TCP connection.
func TestChecksAgainstOwnServer(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer()
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()

	cc, err := grpc.NewClient("passthrough:///"+lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	c := echo.NewClient(cc)
	for _, ch := range checks {
		t.Run(ch.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
			defer cancel()
			if err := ch.run(ctx, c, cc); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestLoopbackTarget(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:50051":     "127.0.0.1:50051",
		"127.1.2.3:1":         "127.1.2.3:1",
		"[::1]:50051":         "[::1]:50051",
		"localhost:7":         "127.0.0.1:7",
		"10.0.0.1:50051":      "",
		"0.0.0.0:50051":       "",
		"example.com:80":      "",
		"127.0.0.1":           "",
		"[::ffff:8.8.8.8]:53": "",
	} {
		got, ok := loopbackTarget(addr)
		if ok != (want != "") || got != want {
			t.Errorf("loopbackTarget(%q) = %q, %v; want %q", addr, got, ok, want)
		}
	}
}

func TestSelectChecks(t *testing.T) {
	got, err := selectChecks("metadata,server,unary")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range got {
		names = append(names, c.name)
	}
	want := []string{"unary", "server_stream", "server_stream_many", "metadata"}
	if !slices.Equal(names, want) {
		t.Errorf("got %v, want %v", names, want)
	}
	if _, err := selectChecks("unary,nope"); err == nil {
		t.Error("unknown check accepted")
	}
}
