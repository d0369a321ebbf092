// Package echo is the hand-written equivalent of what protoc and protoc-gen-go-grpc would generate
// for ../echo.proto (there is no protoc on the project's machines): the grpc.ServiceDesc for a
// server, a typed client, and the file descriptor, which init registers in
// protoregistry.GlobalFiles so that gRPC server reflection can describe the service.
//
// The messages are the well-known google.protobuf.StringValue, so nothing here is generated code
// and the wire is the same as with generated stubs.
package echo

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// The names on the wire: the HTTP/2 :path of a call is "/" + ServiceName + "/" + method.
const (
	ServiceName        = "hessianrs.echo.v1.Echo"
	UnaryMethod        = "/" + ServiceName + "/Unary"
	ServerStreamMethod = "/" + ServiceName + "/ServerStream"
	ClientStreamMethod = "/" + ServiceName + "/ClientStream"
	BidiMethod         = "/" + ServiceName + "/Bidi"

	// ProtoPath is the name of echo.proto in the descriptor registry; it matches the file's
	// name relative to interop/grpc-go, so grpcurl's -proto echo.proto and reflection agree.
	ProtoPath = "echo.proto"
)

// Msg is the request and response type of every method.
type Msg = wrapperspb.StringValue

// Server is what an Echo implementation provides; Register wires it into a grpc.Server.
type Server interface {
	Unary(context.Context, *Msg) (*Msg, error)
	ServerStream(*Msg, grpc.ServerStreamingServer[Msg]) error
	ClientStream(grpc.ClientStreamingServer[Msg, Msg]) error
	Bidi(grpc.BidiStreamingServer[Msg, Msg]) error
}

// Register adds srv to s under ServiceName.
func Register(s grpc.ServiceRegistrar, srv Server) {
	s.RegisterService(&ServiceDesc, srv)
}

// ServiceDesc describes Echo to grpc-go. The stream order matters to Client, which picks its
// StreamDesc by index.
var ServiceDesc = grpc.ServiceDesc{
	ServiceName: ServiceName,
	HandlerType: (*Server)(nil),
	Methods: []grpc.MethodDesc{
		{MethodName: "Unary", Handler: unaryHandler},
	},
	Streams: []grpc.StreamDesc{
		{StreamName: "ServerStream", Handler: serverStreamHandler, ServerStreams: true},
		{StreamName: "ClientStream", Handler: clientStreamHandler, ClientStreams: true},
		{StreamName: "Bidi", Handler: bidiHandler, ServerStreams: true, ClientStreams: true},
	},
	Metadata: ProtoPath,
}

func unaryHandler(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
	in := new(Msg)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(Server).Unary(ctx, in)
	}
	info := &grpc.UnaryServerInfo{Server: srv, FullMethod: UnaryMethod}
	return interceptor(ctx, in, info, func(ctx context.Context, req any) (any, error) {
		return srv.(Server).Unary(ctx, req.(*Msg))
	})
}

func serverStreamHandler(srv any, stream grpc.ServerStream) error {
	in := new(Msg)
	if err := stream.RecvMsg(in); err != nil {
		return err
	}
	return srv.(Server).ServerStream(in, &grpc.GenericServerStream[Msg, Msg]{ServerStream: stream})
}

func clientStreamHandler(srv any, stream grpc.ServerStream) error {
	return srv.(Server).ClientStream(&grpc.GenericServerStream[Msg, Msg]{ServerStream: stream})
}

func bidiHandler(srv any, stream grpc.ServerStream) error {
	return srv.(Server).Bidi(&grpc.GenericServerStream[Msg, Msg]{ServerStream: stream})
}

// Client calls Echo over any grpc.ClientConnInterface (normally a *grpc.ClientConn).
type Client struct {
	cc grpc.ClientConnInterface
}

// NewClient returns a Client that calls through cc.
func NewClient(cc grpc.ClientConnInterface) *Client {
	return &Client{cc: cc}
}

// Unary calls Echo/Unary.
func (c *Client) Unary(ctx context.Context, in *Msg, opts ...grpc.CallOption) (*Msg, error) {
	out := new(Msg)
	if err := c.cc.Invoke(ctx, UnaryMethod, in, out, opts...); err != nil {
		return nil, err
	}
	return out, nil
}

// ServerStream sends in, half-closes, and returns the stream of answers.
func (c *Client) ServerStream(ctx context.Context, in *Msg, opts ...grpc.CallOption) (grpc.ServerStreamingClient[Msg], error) {
	stream, err := c.cc.NewStream(ctx, &ServiceDesc.Streams[0], ServerStreamMethod, opts...)
	if err != nil {
		return nil, err
	}
	if err := stream.SendMsg(in); err != nil {
		return nil, err
	}
	if err := stream.CloseSend(); err != nil {
		return nil, err
	}
	return &grpc.GenericClientStream[Msg, Msg]{ClientStream: stream}, nil
}

// ClientStream opens Echo/ClientStream; CloseAndRecv gives the joined answer.
func (c *Client) ClientStream(ctx context.Context, opts ...grpc.CallOption) (grpc.ClientStreamingClient[Msg, Msg], error) {
	stream, err := c.cc.NewStream(ctx, &ServiceDesc.Streams[1], ClientStreamMethod, opts...)
	if err != nil {
		return nil, err
	}
	return &grpc.GenericClientStream[Msg, Msg]{ClientStream: stream}, nil
}

// Bidi opens Echo/Bidi.
func (c *Client) Bidi(ctx context.Context, opts ...grpc.CallOption) (grpc.BidiStreamingClient[Msg, Msg], error) {
	stream, err := c.cc.NewStream(ctx, &ServiceDesc.Streams[2], BidiMethod, opts...)
	if err != nil {
		return nil, err
	}
	return &grpc.GenericClientStream[Msg, Msg]{ClientStream: stream}, nil
}

// File is echo.proto's descriptor, built from FileDescriptorProto and registered in
// protoregistry.GlobalFiles (where grpc's reflection service looks symbols up).
var File protoreflect.FileDescriptor

func init() {
	// wrapperspb's import above has already registered google/protobuf/wrappers.proto, which
	// NewFile resolves the dependency against.
	fd, err := protodesc.NewFile(FileDescriptorProto(), protoregistry.GlobalFiles)
	if err != nil {
		panic("echo: building echo.proto's descriptor: " + err.Error())
	}
	if err := protoregistry.GlobalFiles.RegisterFile(fd); err != nil {
		panic("echo: registering echo.proto: " + err.Error())
	}
	File = fd
}

// FileDescriptorProto is echo.proto written as the descriptor protoc would produce (without
// source locations and comments). echo_test.go compares it with a parse of the .proto file.
func FileDescriptorProto() *descriptorpb.FileDescriptorProto {
	const msg = ".google.protobuf.StringValue"
	method := func(name string, clientStreaming, serverStreaming bool) *descriptorpb.MethodDescriptorProto {
		m := &descriptorpb.MethodDescriptorProto{
			Name:       proto.String(name),
			InputType:  proto.String(msg),
			OutputType: proto.String(msg),
		}
		// protoc leaves the flags unset unless the keyword "stream" is there.
		if clientStreaming {
			m.ClientStreaming = proto.Bool(true)
		}
		if serverStreaming {
			m.ServerStreaming = proto.Bool(true)
		}
		return m
	}
	return &descriptorpb.FileDescriptorProto{
		Name:       proto.String(ProtoPath),
		Package:    proto.String("hessianrs.echo.v1"),
		Dependency: []string{"google/protobuf/wrappers.proto"},
		Service: []*descriptorpb.ServiceDescriptorProto{{
			Name: proto.String("Echo"),
			Method: []*descriptorpb.MethodDescriptorProto{
				method("Unary", false, false),
				method("ServerStream", false, true),
				method("ClientStream", true, false),
				method("Bidi", true, true),
			},
		}},
		Syntax: proto.String("proto3"),
	}
}
