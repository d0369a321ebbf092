package echo

import (
	"context"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/google/go-cmp/cmp"
)

// The hand-written descriptor must say what ../echo.proto says: parse the real file (protocompile
// is a Go protobuf compiler, used only here) and compare the descriptors without source info.
func TestDescriptorMatchesProtoFile(t *testing.T) {
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{".."}}),
	}
	files, err := c.Compile(context.Background(), ProtoPath)
	if err != nil {
		t.Fatalf("compiling ../%s: %v", ProtoPath, err)
	}
	parsed := protodesc.ToFileDescriptorProto(files[0])
	parsed.SourceCodeInfo = nil
	if diff := cmp.Diff(parsed, FileDescriptorProto(), protocmp.Transform()); diff != "" {
		t.Errorf("echo.proto (-) vs FileDescriptorProto() (+):\n%s", diff)
	}
	if !proto.Equal(protodesc.ToFileDescriptorProto(File), FileDescriptorProto()) {
		t.Error("the registered File differs from FileDescriptorProto()")
	}
}

// ServiceDesc is what grpc-go routes by; it must list every method of the descriptor with the
// same streaming kind, and nothing else.
func TestServiceDescMatchesDescriptor(t *testing.T) {
	sd := File.Services().ByName("Echo")
	if sd == nil || string(sd.FullName()) != ServiceName {
		t.Fatalf("service %s not in descriptor", ServiceName)
	}
	kinds := map[string][2]bool{}
	for _, m := range ServiceDesc.Methods {
		kinds[m.MethodName] = [2]bool{false, false}
	}
	for _, s := range ServiceDesc.Streams {
		kinds[s.StreamName] = [2]bool{s.ClientStreams, s.ServerStreams}
	}
	if len(kinds) != sd.Methods().Len() {
		t.Errorf("ServiceDesc has %d methods, descriptor %d", len(kinds), sd.Methods().Len())
	}
	for i := 0; i < sd.Methods().Len(); i++ {
		m := sd.Methods().Get(i)
		got, ok := kinds[string(m.Name())]
		want := [2]bool{m.IsStreamingClient(), m.IsStreamingServer()}
		if !ok || got != want {
			t.Errorf("method %s: ServiceDesc (client, server streams) %v (present %v), descriptor %v", m.Name(), got, ok, want)
		}
	}
}
