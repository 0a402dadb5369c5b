#!/usr/bin/env python3
"""Decode a framed OTLP file with the reference opentelemetry-proto package (upb) and print one
OTLP/JSON request per line: an implementation independent of OTLPWire, for cross-checks in tests.

usage: reference-decode.py FILE FRAMING SIGNAL [--parse-only]
       FRAMING: u32be|varint|none|lines (OTLP JSON lines)   SIGNAL: traces|logs|metrics
gzip input (one or more members) and zstd input (one or more frames, through the `zstandard` package) are
detected from their magic bytes, and so is a u32be record that is one zstd frame (the Collector's file exporter
with `compression: zstd`): it is decompressed, and read as OTLP JSON when it starts with `{`. --parse-only parses every record and
prints only the record count (the baseline for `otlp-dump validate` in Benchmarks/run-yardstick.sh).
"""
import base64
import gzip
import io
import json
import sys

from google.protobuf.json_format import MessageToDict, Parse
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

ID_KEYS = {"traceId", "spanId", "parentSpanId"}
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def zstd_decompress(data):
    """Every frame of `data` (a zstd stream), skippable frames skipped."""
    import zstandard

    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True)
    return reader.read()


def is_zstd(data):
    return data[:4] == ZSTD_MAGIC or (len(data) >= 4 and data[0] & 0xF0 == 0x50 and data[1:4] == b"\x2a\x4d\x18")


def hex_to_base64_ids(node):
    """OTLP JSON's hex IDs as the protobuf JSON mapping's base64, so that Parse reads them."""
    if isinstance(node, dict):
        return {k: (base64.b64encode(bytes.fromhex(v)).decode() if k in ID_KEYS and isinstance(v, str) else hex_to_base64_ids(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [hex_to_base64_ids(v) for v in node]
    return node


def hex_ids(node):
    if isinstance(node, dict):
        return {k: (base64.b64decode(v).hex() if k in ID_KEYS and isinstance(v, str) else hex_ids(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [hex_ids(v) for v in node]
    return node


def records(data, framing):
    if framing == "none":
        yield data
        return
    if framing == "lines":
        yield from (line for line in data.split(b"\n") if line.strip())
        return
    pos = 0
    while pos < len(data):
        if framing == "u32be":
            length = int.from_bytes(data[pos:pos + 4], "big")
            pos += 4
        else:
            length, shift = 0, 0
            while True:
                b = data[pos]
                pos += 1
                length |= (b & 0x7F) << shift
                shift += 7
                if not b & 0x80:
                    break
        if pos + length > len(data):
            raise SystemExit(f"truncated record at {pos}")
        yield data[pos:pos + length]
        pos += length


def main():
    path, framing, signal = sys.argv[1:4]
    parse_only = "--parse-only" in sys.argv[4:]
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    elif is_zstd(data):
        data = zstd_decompress(data)
    cls = {"traces": ExportTraceServiceRequest, "logs": ExportLogsServiceRequest, "metrics": ExportMetricsServiceRequest}[signal]
    count = 0
    out = sys.stdout
    for body in records(data, framing):
        message = cls()
        if framing == "u32be" and is_zstd(body):
            body = zstd_decompress(body)
        if body[:1] == b"{":
            Parse(json.dumps(hex_to_base64_ids(json.loads(body))), message)
        else:
            message.ParseFromString(body)
        count += 1
        if not parse_only:
            out.write(json.dumps(hex_ids(MessageToDict(message, use_integers_for_enums=True))) + "\n")
    if parse_only:
        print(count)


if __name__ == "__main__":
    main()
