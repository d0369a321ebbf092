package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/hessianrs/interop/grpc-go/echo"
)

// Bounds on what a request may ask for, so a bad test cannot make the peer sleep or stream
// for ever.
const (
	maxSleepMillis = 60_000
	maxMany        = 1_000_000
)

// traceKey is the request metadata key the server echoes back as a response header.
const traceKey = "x-trace"

func runServer(args []string) int {
	watchStdin := true
	var rest []string
	for _, a := range args {
		if a == "--ignore-stdin" {
			watchStdin = false
		} else {
			rest = append(rest, a)
		}
	}
	if len(rest) != 1 {
		return usage("server takes one PORT")
	}
	port, err := strconv.Atoi(rest[0])
	if err != nil || port < 0 || port > 65535 {
		return usage("bad port " + rest[0])
	}

	// 127.0.0.1 only: the tests never need another interface, and nothing else may reach it.
	lis, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "grpcpeer server:", err)
		return exitFailed
	}
	srv := newServer()

	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	// The listener is bound, so connections queue in the backlog until Serve accepts them: a
	// test may dial as soon as it reads READY.
	fmt.Printf("READY %d\n", lis.Addr().(*net.TCPAddr).Port)
	fmt.Fprintf(os.Stderr, "grpcpeer server: grpc-go %s on %s\n", grpc.Version, lis.Addr())

	stop, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	stdinClosed := make(chan struct{})
	if watchStdin {
		// The test holds our stdin open; when the test dies the pipe closes and so do we.
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			close(stdinClosed)
		}()
	}
	select {
	case <-stop.Done():
		fmt.Fprintln(os.Stderr, "grpcpeer server: signal, shutting down")
	case <-stdinClosed:
		fmt.Fprintln(os.Stderr, "grpcpeer server: stdin closed, shutting down")
	case err := <-served:
		fmt.Fprintln(os.Stderr, "grpcpeer server:", err)
		return exitFailed
	}
	shutdown(srv, 2*time.Second)
	return exitOK
}

// newServer is a grpc.Server with Echo, server reflection (so grpcurl needs no .proto file),
// and the x-trace echo on every call.
func newServer() *grpc.Server {
	srv := grpc.NewServer(
		grpc.ChainUnaryInterceptor(traceUnary),
		grpc.ChainStreamInterceptor(traceStream),
	)
	echo.Register(srv, echoServer{})
	reflection.Register(srv)
	return srv
}

// shutdown lets running calls finish (GracefulStop) but not for longer than grace: a client
// that keeps a stream open must not keep the peer alive.
func shutdown(srv *grpc.Server, grace time.Duration) {
	done := make(chan struct{})
	go func() {
		srv.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
		srv.Stop()
	}
}

// traceHeader is the response header for a call whose request carried x-trace, else nil.
func traceHeader(ctx context.Context) metadata.MD {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get(traceKey); len(v) > 0 {
		return metadata.MD{traceKey: v}
	}
	return nil
}

// The interceptors put x-trace on every call of every service, before the handler runs, so
// it goes out with the response headers even when the handler fails.
func traceUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if h := traceHeader(ctx); h != nil {
		if err := grpc.SetHeader(ctx, h); err != nil {
			return nil, err
		}
	}
	return handler(ctx, req)
}

func traceStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if h := traceHeader(ss.Context()); h != nil {
		if err := ss.SetHeader(h); err != nil {
			return err
		}
	}
	return handler(srv, ss)
}

// echoServer implements echo.proto's contract.
type echoServer struct{}

func (echoServer) Unary(ctx context.Context, in *echo.Msg) (*echo.Msg, error) {
	v := in.GetValue()
	if v == "fail" {
		return nil, status.Error(codes.InvalidArgument, "fail requested")
	}
	if arg, ok := strings.CutPrefix(v, "sleep:"); ok {
		ms, err := strconv.Atoi(arg)
		if err != nil || ms < 0 || ms > maxSleepMillis {
			return nil, status.Errorf(codes.InvalidArgument, "sleep wants 0..%d ms, got %q", maxSleepMillis, arg)
		}
		start := time.Now()
		deadline := "no grpc-timeout"
		if d, ok := ctx.Deadline(); ok {
			deadline = fmt.Sprintf("grpc-timeout %v", time.Until(d).Round(time.Millisecond))
		}
		t := time.NewTimer(time.Duration(ms) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
			return wrapperspb.String("slept " + arg), nil
		case <-ctx.Done():
			// The client's deadline (grpc-timeout) or cancellation (RST_STREAM): stop
			// sleeping. The log line says which deadline the call came with: a client's own
			// timer gives it DeadlineExceeded whether or not it sent grpc-timeout.
			fmt.Fprintf(os.Stderr, "grpcpeer server: sleep:%s ended after %v (%s): %v\n",
				arg, time.Since(start).Round(time.Millisecond), deadline, ctx.Err())
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	return wrapperspb.String("echo: " + v), nil
}

func (echoServer) ServerStream(in *echo.Msg, stream grpc.ServerStreamingServer[echo.Msg]) error {
	v := in.GetValue()
	prefix, n := v, 3
	if arg, ok := strings.CutPrefix(v, "many:"); ok {
		count, err := strconv.Atoi(arg)
		if err != nil || count < 0 || count > maxMany {
			return status.Errorf(codes.InvalidArgument, "many wants 0..%d, got %q", maxMany, arg)
		}
		prefix, n = "m", count
	}
	for i := 0; i < n; i++ {
		if err := stream.Send(wrapperspb.String(fmt.Sprintf("%s-%d", prefix, i))); err != nil {
			return err
		}
	}
	return nil
}

func (echoServer) ClientStream(stream grpc.ClientStreamingServer[echo.Msg, echo.Msg]) error {
	var values []string
	for {
		in, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return stream.SendAndClose(wrapperspb.String(strings.Join(values, ",")))
		}
		if err != nil {
			return err
		}
		values = append(values, in.GetValue())
	}
}

func (echoServer) Bidi(stream grpc.BidiStreamingServer[echo.Msg, echo.Msg]) error {
	for {
		in, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		// Answer each message before reading the next: the client's bidi check depends on it.
		if err := stream.Send(wrapperspb.String("echo: " + in.GetValue())); err != nil {
			return err
		}
	}
}
