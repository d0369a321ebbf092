package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/hessianrs/interop/grpc-go/echo"
)

// checkTimeout bounds each check, so a server that hangs fails one check instead of the run.
const checkTimeout = 10 * time.Second

type check struct {
	name string
	run  func(ctx context.Context, c *echo.Client, cc *grpc.ClientConn) error
}

// checks in the order they run (and are printed).
var checks = []check{
	{"unary", checkUnary},
	{"server_stream", checkServerStream},
	{"server_stream_many", checkServerStreamMany},
	{"client_stream", checkClientStream},
	{"bidi", checkBidi},
	{"error", checkError},
	{"deadline", checkDeadline},
	{"metadata", checkMetadata},
	{"unimplemented", checkUnimplemented},
}

// aliases are the short names of the brief's --checks example.
var aliases = map[string][]string{
	"server": {"server_stream", "server_stream_many"},
	"client": {"client_stream"},
}

func runClient(args []string) int {
	var addr, list string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--checks" && i+1 < len(args):
			i++
			list = args[i]
		case strings.HasPrefix(a, "--checks="):
			list = strings.TrimPrefix(a, "--checks=")
		case strings.HasPrefix(a, "-") || addr != "":
			return usage("unexpected argument " + a)
		default:
			addr = a
		}
	}
	if addr == "" {
		return usage("client needs HOST:PORT")
	}
	selected, err := selectChecks(list)
	if err != nil {
		return usage(err.Error())
	}
	target, ok := loopbackTarget(addr)
	if !ok {
		fmt.Printf("NON-LOOPBACK %s\n", addr)
		return exitNonLoopback
	}

	// passthrough: hand the IP:port to the dialer as is, no resolver and no DNS.
	cc, err := grpc.NewClient("passthrough:///"+target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "grpcpeer client:", err)
		return exitFailed
	}
	defer cc.Close()
	c := echo.NewClient(cc)

	passed, failed := 0, 0
	for _, ch := range selected {
		ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
		err := ch.run(ctx, c, cc)
		cancel()
		if err != nil {
			failed++
			fmt.Printf("FAIL %s: %v\n", ch.name, err)
		} else {
			passed++
			fmt.Printf("ok %s\n", ch.name)
		}
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return exitFailed
	}
	return exitOK
}

// selectChecks turns "--checks a,b" into checks, in the canonical order; "" means all.
func selectChecks(list string) ([]check, error) {
	if list == "" {
		return checks, nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if expanded, ok := aliases[name]; ok {
			for _, n := range expanded {
				want[n] = true
			}
			continue
		}
		if !slices.ContainsFunc(checks, func(c check) bool { return c.name == name }) {
			return nil, fmt.Errorf("unknown check %q", name)
		}
		want[name] = true
	}
	var out []check
	for _, c := range checks {
		if want[c.name] {
			out = append(out, c)
		}
	}
	return out, nil
}

// loopbackTarget accepts HOST:PORT when HOST is a loopback IP (127.0.0.0/8, ::1) or
// "localhost", which is pinned to 127.0.0.1 rather than resolved.
func loopbackTarget(addr string) (string, bool) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", false
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", false
	}
	return net.JoinHostPort(ip.String(), port), true
}

func checkUnary(ctx context.Context, c *echo.Client, _ *grpc.ClientConn) error {
	out, err := c.Unary(ctx, wrapperspb.String("hi"))
	if err != nil {
		return err
	}
	return expect("answer", out.GetValue(), "echo: hi")
}

func checkServerStream(ctx context.Context, c *echo.Client, _ *grpc.ClientConn) error {
	return expectStream(ctx, c, "s", []string{"s-0", "s-1", "s-2"})
}

func checkServerStreamMany(ctx context.Context, c *echo.Client, _ *grpc.ClientConn) error {
	want := make([]string, 1000)
	for i := range want {
		want[i] = fmt.Sprintf("m-%d", i)
	}
	return expectStream(ctx, c, "many:1000", want)
}

// expectStream calls ServerStream(in) and compares every message, in order, and the clean end.
func expectStream(ctx context.Context, c *echo.Client, in string, want []string) error {
	stream, err := c.ServerStream(ctx, wrapperspb.String(in))
	if err != nil {
		return err
	}
	for i := 0; ; i++ {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			if i != len(want) {
				return fmt.Errorf("stream ended after %d messages, want %d", i, len(want))
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("after %d messages: %w", i, err)
		}
		if i >= len(want) {
			return fmt.Errorf("message %d %q beyond the %d expected", i, msg.GetValue(), len(want))
		}
		if err := expect(fmt.Sprintf("message %d", i), msg.GetValue(), want[i]); err != nil {
			return err
		}
	}
}

func checkClientStream(ctx context.Context, c *echo.Client, _ *grpc.ClientConn) error {
	stream, err := c.ClientStream(ctx)
	if err != nil {
		return err
	}
	for _, v := range []string{"a", "b", "c"} {
		if err := stream.Send(wrapperspb.String(v)); err != nil {
			return fmt.Errorf("send %s: %w", v, err)
		}
	}
	out, err := stream.CloseAndRecv()
	if err != nil {
		return err
	}
	return expect("answer", out.GetValue(), "a,b,c")
}

// checkBidi waits for each answer before sending the next value: a server (or a client
// library) that only answers after the request stream ends would time out here.
func checkBidi(ctx context.Context, c *echo.Client, _ *grpc.ClientConn) error {
	stream, err := c.Bidi(ctx)
	if err != nil {
		return err
	}
	for _, v := range []string{"x", "y"} {
		if err := stream.Send(wrapperspb.String(v)); err != nil {
			return fmt.Errorf("send %s: %w", v, err)
		}
		out, err := stream.Recv()
		if err != nil {
			return fmt.Errorf("answer to %s: %w", v, err)
		}
		if err := expect("answer to "+v, out.GetValue(), "echo: "+v); err != nil {
			return err
		}
	}
	if err := stream.CloseSend(); err != nil {
		return err
	}
	if out, err := stream.Recv(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("after half-close: want the end of the stream, got %v, %v", out, err)
	}
	return nil
}

func checkError(ctx context.Context, c *echo.Client, _ *grpc.ClientConn) error {
	_, err := c.Unary(ctx, wrapperspb.String("fail"))
	return expectStatus(err, codes.InvalidArgument, "fail requested")
}

// checkDeadline: the server sleeps 2 s, the call allows 300 ms; the call must end with
// DeadlineExceeded well before the sleep would (1.5 s leaves room for a slow machine), and the
// connection must still serve a call afterwards (grpc-go resets the timed-out stream with
// RST_STREAM, which the server must take without dropping the connection).
// grpc-go's own timer ends the call on time even if the server ignores grpc-timeout: whether
// the server honoured it shows only on the server's side.
func checkDeadline(ctx context.Context, c *echo.Client, _ *grpc.ClientConn) error {
	if err := checkDeadlineOnce(ctx, c); err != nil {
		return err
	}
	out, err := c.Unary(ctx, wrapperspb.String("after"))
	if err != nil {
		return fmt.Errorf("call after the deadline: %w", err)
	}
	return expect("call after the deadline", out.GetValue(), "echo: after")
}

func checkDeadlineOnce(ctx context.Context, c *echo.Client) error {
	ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := c.Unary(ctx, wrapperspb.String("sleep:2000"))
	elapsed := time.Since(start)
	if err == nil {
		return fmt.Errorf("answered %q after %v, want DeadlineExceeded", out.GetValue(), elapsed)
	}
	if err := expectStatus(err, codes.DeadlineExceeded, ""); err != nil {
		return err
	}
	if elapsed > 1500*time.Millisecond {
		return fmt.Errorf("DeadlineExceeded only after %v, want < 1.5s", elapsed)
	}
	return nil
}

// checkMetadata sends x-trace on a unary and on a streaming call and wants it back as a
// response header on both.
func checkMetadata(ctx context.Context, c *echo.Client, _ *grpc.ClientConn) error {
	ctx = metadata.AppendToOutgoingContext(ctx, traceKey, "abc")
	var header metadata.MD
	if _, err := c.Unary(ctx, wrapperspb.String("hi"), grpc.Header(&header)); err != nil {
		return err
	}
	if err := expect("unary header "+traceKey, strings.Join(header.Get(traceKey), ","), "abc"); err != nil {
		return err
	}
	stream, err := c.ServerStream(ctx, wrapperspb.String("s"))
	if err != nil {
		return err
	}
	header, err = stream.Header()
	if err != nil {
		return fmt.Errorf("stream header: %w", err)
	}
	if err := expect("stream header "+traceKey, strings.Join(header.Get(traceKey), ","), "abc"); err != nil {
		return err
	}
	for {
		if _, err := stream.Recv(); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func checkUnimplemented(ctx context.Context, _ *echo.Client, cc *grpc.ClientConn) error {
	err := cc.Invoke(ctx, "/"+echo.ServiceName+"/Nope", wrapperspb.String("hi"), new(echo.Msg))
	return expectStatus(err, codes.Unimplemented, "")
}

func expect(what, got, want string) error {
	if got != want {
		return fmt.Errorf("%s: got %q, want %q", what, got, want)
	}
	return nil
}

// expectStatus wants err to be a gRPC status with code, and with message unless it is "".
func expectStatus(err error, code codes.Code, message string) error {
	if err == nil {
		return fmt.Errorf("succeeded, want status %s", code)
	}
	st, ok := status.FromError(err)
	if !ok {
		return fmt.Errorf("not a gRPC status: %v", err)
	}
	if st.Code() != code || (message != "" && st.Message() != message) {
		return fmt.Errorf("got status %s %q, want %s %q", st.Code(), st.Message(), code, message)
	}
	return nil
}
