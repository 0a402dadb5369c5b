#!/usr/bin/env python3
"""A scripted OTLP/HTTP server for OTLPWire's tests (loopback only; stopped by the test).

usage:
  otlp-test-collector.py serve RECORD_DIR [--script SCRIPT.json]
      Listens on 127.0.0.1 on a free port and prints "listening PORT" on its first line of stdout.
      Every request is recorded as RECORD_DIR/NNNNNN.json (method, path, headers, body in base64) before
      it is answered. SCRIPT.json is a list of answers, used in order, one per request; after the list
      (or without one) every request gets 200 with an empty body. An answer is an object:
        {"status": 503, "headers": {"Retry-After": "1"}, "body": "<base64>"}   or   {"hang": true}
      ("hang": read the request, never answer, keep the connection open).
      Requests answered 2xx are also decoded with the reference package (opentelemetry-proto): their
      spans, log records and metrics data points are appended to RECORD_DIR/items.jsonl in canonical form
      (see below).
  otlp-test-collector.py exec PROGRAM ARGUMENTS...
      Runs PROGRAM with no signal blocked (how the tests start rotel, so that SIGTERM reaches it).
  otlp-test-collector.py canonical FILE FRAMING SIGNAL
      Prints the items of an OTLP file (FRAMING u32be, varint, jsonl or none; gzip or not; SIGNAL traces,
      logs or metrics) in the same canonical form.

Canonical form: one JSON line per span or log record, {"signal", "resource", "scope", "item"}, each the
reference package's MessageToDict with sorted keys, so the test can compare what arrived with what was
sent item by item (a collector may re-batch).
"""
import base64
import gzip
import http.server
import json
import os
import signal
import struct
import sys
import threading

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2


def request_type(signal):
    return {
        "traces": trace_service_pb2.ExportTraceServiceRequest, "logs": logs_service_pb2.ExportLogsServiceRequest,
        "metrics": metrics_service_pb2.ExportMetricsServiceRequest,
    }[signal]


def signal_of_path(path):
    return "logs" if path.endswith("/logs") else "metrics" if path.endswith("/metrics") else "traces"


def canonical_data_points(message):
    """One line per metrics data point: the point with its metric (name, description, unit, metadata, kind,
    temporality, monotonicity), scope and resource."""
    as_dict = lambda m: json.loads(json.dumps(json_format.MessageToDict(m), sort_keys=True))
    lines = []
    for group in message.resource_metrics:
        for scope_group in group.scope_metrics:
            for metric in scope_group.metrics:
                kind = metric.WhichOneof("data")
                data = getattr(metric, kind) if kind else None
                head = {"name": metric.name, "description": metric.description, "unit": metric.unit,
                        "metadata": [as_dict(kv) for kv in metric.metadata], "kind": kind,
                        "temporality": getattr(data, "aggregation_temporality", None),
                        "monotonic": getattr(data, "is_monotonic", None)}
                points = list(data.data_points) if data is not None else []
                for point in points or [None]:
                    lines.append(json.dumps({
                        "signal": "metrics", "resource": as_dict(group.resource), "scope": as_dict(scope_group.scope),
                        "resourceSchemaUrl": group.schema_url, "scopeSchemaUrl": scope_group.schema_url,
                        "metric": head, "point": as_dict(point) if point is not None else None}, sort_keys=True))
    return lines


def canonical_items(message, signal):
    if signal == "metrics":
        return canonical_data_points(message)
    as_dict = lambda m: json.dumps(json_format.MessageToDict(m), sort_keys=True)
    lines = []
    groups = message.resource_spans if signal == "traces" else message.resource_logs
    for group in groups:
        scope_groups = group.scope_spans if signal == "traces" else group.scope_logs
        for scope_group in scope_groups:
            items = scope_group.spans if signal == "traces" else scope_group.log_records
            for item in items:
                lines.append(json.dumps({
                    "signal": signal, "resource": json.loads(as_dict(group.resource)),
                    "scope": json.loads(as_dict(scope_group.scope)), "item": json.loads(as_dict(item))}, sort_keys=True))
    return lines


def parse_otlp_json(text, message):
    """Parses OTLP JSON, whose trace and span IDs are hex (protobuf's own JSON mapping has base64 bytes)."""
    def convert(value):
        if isinstance(value, dict):
            return {key: (base64.b64encode(bytes.fromhex(item)).decode()
                          if key in ("traceId", "spanId", "parentSpanId") and isinstance(item, str) else convert(item))
                    for key, item in value.items()}
        if isinstance(value, list):
            return [convert(item) for item in value]
        return value
    json_format.ParseDict(convert(json.loads(text)), message)


def decode_body(body, headers, signal):
    if headers.get("content-encoding", "").lower() == "gzip":
        body = gzip.decompress(body)
    message = request_type(signal)()
    if headers.get("content-type", "").startswith("application/json"):
        parse_otlp_json(body.decode("utf-8"), message)
    else:
        message.ParseFromString(body)
    return message


def serve(record_dir, script_path):
    script = json.load(open(script_path)) if script_path else []
    lock = threading.Lock()
    state = {"count": 0}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            with lock:
                index = state["count"]
                state["count"] += 1
                with open(os.path.join(record_dir, "%06d.json" % index), "w") as f:
                    json.dump({"method": "POST", "path": self.path, "headers": headers,
                               "body": base64.b64encode(body).decode()}, f)
            answer = script[index] if index < len(script) else {"status": 200}
            if answer.get("hang"):
                threading.Event().wait()
            status = answer.get("status", 200)
            reply = base64.b64decode(answer.get("body", ""))
            if 200 <= status < 300:
                signal = signal_of_path(self.path)
                try:
                    lines = canonical_items(decode_body(body, headers, signal), signal)
                except Exception as error:  # recorded, so the test sees what could not be decoded
                    lines = [json.dumps({"undecodable": str(error)})]
                with lock, open(os.path.join(record_dir, "items.jsonl"), "a") as f:
                    for line in lines:
                        f.write(line + "\n")
            self.send_response(status)
            for key, value in answer.get("headers", {}).items():
                self.send_header(key, value)
            if "content-type" not in {k.lower() for k in answer.get("headers", {})}:
                self.send_header("Content-Type", headers.get("content-type", "application/x-protobuf"))
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("listening %d" % server.server_address[1], flush=True)
    server.serve_forever()


def read_varint(data, offset):
    value, shift = 0, 0
    while True:
        byte = data[offset]
        offset += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, offset


def canonical(path, framing, signal):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)  # every member
    messages = []
    if framing == "jsonl":
        for line in data.decode("utf-8").splitlines():
            if line.strip():
                message = request_type(signal)()
                parse_otlp_json(line, message)
                messages.append(message)
    else:
        offset = 0
        while offset < len(data):
            if framing == "u32be":
                (length,) = struct.unpack(">I", data[offset:offset + 4])
                offset += 4
            elif framing == "varint":
                length, offset = read_varint(data, offset)
            else:
                length = len(data)
            message = request_type(signal)()
            message.ParseFromString(data[offset:offset + length])
            messages.append(message)
            offset += length
    for message in messages:
        for line in canonical_items(message, signal):
            print(line)


if __name__ == "__main__":
    # A child of a test process may start with signals blocked (its spawning thread's mask): unblock them,
    # so that the test can stop this server (and rotel, started through "exec") with SIGTERM.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    if sys.argv[1] == "exec":
        os.execv(sys.argv[2], sys.argv[2:])
    if sys.argv[1] == "serve":
        script = sys.argv[sys.argv.index("--script") + 1] if "--script" in sys.argv else None
        serve(sys.argv[2], script)
    elif sys.argv[1] == "canonical":
        canonical(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
