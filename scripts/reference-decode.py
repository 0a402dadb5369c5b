#!/usr/bin/env python3
"""Decode a framed OTLP file with the reference opentelemetry-proto package (upb) and print one
OTLP/JSON request per line: an implementation independent of OTLPWire, for cross-checks in tests.

usage: reference-decode.py FILE FRAMING SIGNAL [--parse-only]
       FRAMING: u32be|varint|none   SIGNAL: traces|logs
gzip input (one or more members) is detected from its magic bytes. --parse-only parses every record and
prints only the record count (the baseline for `otlp-dump validate` in Benchmarks/run-yardstick.sh).
"""
import base64
import gzip
import json
import sys

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

ID_KEYS = {"traceId", "spanId", "parentSpanId"}


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
    cls = ExportTraceServiceRequest if signal == "traces" else ExportLogsServiceRequest
    count = 0
    out = sys.stdout
    for body in records(data, framing):
        message = cls()
        message.ParseFromString(body)
        count += 1
        if not parse_only:
            out.write(json.dumps(hex_ids(MessageToDict(message, use_integers_for_enums=True))) + "\n")
    if parse_only:
        print(count)


if __name__ == "__main__":
    main()
