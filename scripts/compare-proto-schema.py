#!/usr/bin/env python3
"""Compare the wire schema of our proto/ with the reference Python packages
(opentelemetry-proto; googleapis-common-protos for google.rpc.Status, and
protobuf itself for google.protobuf.Any): every message's fields (name,
number, type, label, message or enum type, oneof) and every enum's values.
Prints differences; exit 1 on any.

usage: compare-proto-schema.py DESCRIPTOR_SET   (from protoc --descriptor_set_out --include_imports)
"""
import sys
from google.protobuf import any_pb2, descriptor_pb2
from google.rpc import status_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.resource.v1 import resource_pb2
from opentelemetry.proto.trace.v1 import trace_pb2
from opentelemetry.proto.logs.v1 import logs_pb2
from opentelemetry.proto.metrics.v1 import metrics_pb2


# The packages compared: all of OTLP, and the error body of OTLP/HTTP with the Any it holds.
PACKAGES = ("opentelemetry.proto", "google.rpc", "google.protobuf")


def summarize(files):
    out = {}
    def walk_msg(prefix, m):
        name = prefix + "." + m.name
        for f in m.field:
            oneof = m.oneof_decl[f.oneof_index].name if f.HasField("oneof_index") else ""
            out[f"{name}.{f.name}"] = (f.number, f.type, f.label, f.type_name, oneof)
        for n in m.nested_type:
            walk_msg(name, n)
        for e in m.enum_type:
            walk_enum(name, e)
    def walk_enum(prefix, e):
        for v in e.value:
            out[f"{prefix}.{e.name}.{v.name}"] = v.number
    for fd in files:
        if not fd.package.startswith(PACKAGES):
            continue
        for m in fd.message_type:
            walk_msg("." + fd.package, m)
        for e in fd.enum_type:
            walk_enum("." + fd.package, e)
    return out


def reference():
    files = []
    for mod in (
        common_pb2, resource_pb2, trace_pb2, logs_pb2, metrics_pb2, trace_service_pb2, logs_service_pb2, metrics_service_pb2,
        status_pb2, any_pb2,
    ):
        fdp = descriptor_pb2.FileDescriptorProto()
        mod.DESCRIPTOR.CopyToProto(fdp)
        files.append(fdp)
    return summarize(files)


def main():
    fds = descriptor_pb2.FileDescriptorSet()
    fds.ParseFromString(open(sys.argv[1], "rb").read())
    ours, ref = summarize(fds.file), reference()
    bad = 0
    for k in sorted(set(ours) | set(ref)):
        if ours.get(k) != ref.get(k):
            bad += 1
            print(f"{k}: ours={ours.get(k)} reference={ref.get(k)}")
    print(f"{len(ref)} reference entries, {len(ours)} ours, {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
