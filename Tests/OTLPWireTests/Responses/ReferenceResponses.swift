import Foundation
import OTLPTestSupport
import OTLPWire

/// Runs the reference implementation (`opentelemetry-proto`, `googleapis-common-protos`, protobuf's
/// `json_format`) on response bodies, in one python3 process per call.
enum ReferenceResponses {
    /// Runs `script` with `input` on its standard input and returns its output lines.
    static func run(_ script: String, input: [String]) throws -> [String] {
        let result = try OTLPProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script], stdin: Data(input.joined(separator: "\n").utf8))
        guard result.status == 0 else { throw ReferenceFailure(message: result.errors) }
        return result.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    struct ReferenceFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { "python3 failed: \(message)" }
    }

    /// The Python prelude: the three messages by name, and the reader of one message per line.
    static let prelude = """
        import base64, json, sys
        from google.protobuf import json_format
        from google.rpc import status_pb2
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
        from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
        MESSAGES = {
            "traces": trace_service_pb2.ExportTraceServiceResponse,
            "logs": logs_service_pb2.ExportLogsServiceResponse,
            "metrics": metrics_service_pb2.ExportMetricsServiceResponse,
            "status": status_pb2.Status,
        }
        def b64(text):
            return base64.b64encode(text.encode("utf-8")).decode("ascii")
        def values(kind, m):
            if kind == "status":
                return " ".join([str(m.code), b64(m.message)] + [b64(d.type_url) for d in m.details])
            p = m.partial_success
            rejected = {"traces": "rejected_spans", "logs": "rejected_log_records", "metrics": "rejected_data_points"}[kind]
            return " ".join([str(getattr(p, rejected)), b64(p.error_message)])

        """

    /// What the reference decoder makes of each protobuf body (`kind` is `traces`, `logs` or `status`): its
    /// values in the form of ``describe(_:)``, or `nil` when it refuses the body.
    static func decodeProtobuf(_ bodies: [(kind: String, body: [UInt8])]) throws -> [String?] {
        let script =
            prelude + """
                for line in sys.stdin.read().split("\\n"):
                    kind, data = line.split(" ", 1)
                    try:
                        m = MESSAGES[kind]()
                        m.ParseFromString(base64.b64decode(data))
                        print(values(kind, m))
                    except Exception:
                        print("error")
                """
        let lines = try run(script, input: bodies.map { "\($0.kind) \(Data($0.body).base64EncodedString())" })
        return lines.map { $0 == "error" ? nil : $0 }
    }

    /// `rejected base64(message)`, as the reference script prints a response.
    static func describe(_ response: OTLPExportResponse) -> String {
        "\(response.rejectedItems) \(Data(response.errorMessage.utf8).base64EncodedString())"
    }

    /// `code base64(message) base64(typeURL)…`, as the reference script prints a status.
    static func describe(_ status: OTLPRPCStatus) -> String {
        ([String(status.code)] + ([status.message] + status.detailTypeURLs).map { Data($0.utf8).base64EncodedString() })
            .joined(separator: " ")
    }
}
