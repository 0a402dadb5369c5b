import Foundation
import Testing
import OTLPTestSupport

/// The tree of `otlp-dump print`: every span exactly once, whatever its parent links (deep chains, cycles,
/// its own parent, duplicate span IDs, absent parents, no span ID), without recursion.
@Suite("otlp-dump tree")
struct TreeRendererTests {

    static func spanID(_ number: Int) -> String {
        let hex = String(number + 1, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// One span of the input; `id` and `parent` are span numbers (`nil`: no such field).
    struct Span {
        var name: String
        var id: Int?
        var parent: Int?
        var start = 1_000
    }

    static func span(_ name: String, id: Int?, parent: Int?, start: Int = 1_000) -> Span {
        Span(name: name, id: id, parent: parent, start: start)
    }

    /// A bare `ExportTraceServiceRequest` holding `spans`, encoded here by hand (the protobuf wire format is
    /// simple enough), so the test does not depend on the encoder under test and decodes fast.
    static func request(_ spans: [Span]) -> [UInt8] {
        let bytes = OTLPProtobufBytes.field
        let fixed64 = OTLPProtobufBytes.fixed64Field
        func id(_ number: Int) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: UInt64(number + 1) >> (8 * (7 - $0))) } }
        let traceID = (0..<16).map { UInt8($0 + 1) }
        var scopeGroups: [UInt8] = []
        for span in spans {
            var message = bytes(1, traceID)
            if let number = span.id { message += bytes(2, id(number)) }
            if let number = span.parent { message += bytes(4, id(number)) }
            message += bytes(5, Array(span.name.utf8)) + fixed64(7, UInt64(span.start)) + fixed64(8, UInt64(span.start + 10))
            scopeGroups += bytes(2, message)
        }
        return bytes(1, bytes(2, scopeGroups))
    }

    /// Writes one bare request holding `spans` and runs `otlp-dump --brief` on it.
    static func render(_ spans: [Span], extra: [String] = []) throws -> OTLPDumpRunner.Result {
        let file = OTLPTemporaryDirectory.unusedPath("otlp-dump-tree", suffix: ".pb")
        try Data(request(spans)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try OTLPDumpRunner.run(["--brief", "--color", "never", "--framing", "none", "--signal", "traces"] + extra + [file.path])
    }

    /// Span lines by span ID (`span=<hex>` on each span's line).
    static func spanLines(_ output: String) -> [String: [Substring]] {
        var lines: [String: [Substring]] = [:]
        for line in output.split(separator: "\n") {
            guard let range = line.range(of: " span=") else { continue }
            lines[String(line[range.upperBound...].prefix(16)), default: []].append(line)
        }
        return lines
    }

    static func indentation(_ line: Substring) -> Int { line.prefix(while: { $0 == " " }).count }

    @Test("a parent chain 100,000 deep: every span once, in order, indentation capped with the depth shown")
    func deepChain() throws {
        let count = 100_000
        // Children first: the file order must not matter.
        let spans = (0..<count).reversed().map { Self.span("s\($0)", id: $0, parent: $0 == 0 ? nil : $0 - 1, start: 1_000 + $0) }
        // 100,000 spans decode to more than the default 32 MiB: the limit is raised, as a user would.
        let result = try Self.render(spans, extra: ["--max-decoded-bytes", "268435456"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = Self.spanLines(result.stdout)
        #expect(lines.count == count)
        #expect(lines.values.allSatisfy { $0.count == 1 })
        let spanLines = result.stdout.split(separator: "\n").filter { $0.contains(" span=") }
        #expect(spanLines.first?.contains("s0 ") == true)
        #expect(spanLines.last?.contains("[depth 99999] ") == true)
        let widest = spanLines.map(Self.indentation).max() ?? 0
        #expect(widest == Self.indentation(spanLines[40]))
        #expect(result.stdoutBytes.count < count * 200, "output grows linearly with the depth")
    }

    @Test("cycles, a span that is its own parent, duplicate span IDs, absent parents, no span ID: each span shown once and marked")
    func oddParents() throws {
        let spans = [
            // 1 → 2 → 3 → 1, with 4 hanging under 2 (and sorted before all of them)
            Self.span("cycle-a", id: 1, parent: 3, start: 2_000), Self.span("cycle-b", id: 2, parent: 1, start: 2_001),
            Self.span("cycle-c", id: 3, parent: 2, start: 2_002), Self.span("under-cycle", id: 4, parent: 2, start: 1_000),
            Self.span("self", id: 5, parent: 5),
            Self.span("orphan", id: 6, parent: 99),
            // two spans with ID 7, one child of that ID
            Self.span("dup-first", id: 7, parent: nil, start: 3_000), Self.span("dup-second", id: 7, parent: nil, start: 3_001),
            Self.span("dup-child", id: 8, parent: 7, start: 3_002),
            Self.span("no-id", id: nil, parent: 8, start: 3_003),
            Self.span("no-id-root", id: nil, parent: nil),
            // a two-span cycle whose members share an ID with each other's parent
            Self.span("ring-a", id: 10, parent: 11), Self.span("ring-b", id: 11, parent: 10),
        ]
        let result = try Self.render(spans)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        for name in [
            "cycle-a", "cycle-b", "cycle-c", "under-cycle", "self", "orphan", "dup-first", "dup-second", "dup-child", "no-id", "no-id-root",
            "ring-a", "ring-b",
        ] {
            #expect(lines.filter { $0.contains("| \(name) ") }.count == 1, "\(name)\n\(result.stdout)")
        }
        func line(_ name: String) -> Substring { lines.first { $0.contains("| \(name) ") } ?? "" }
        // The cycle is shown from where the parent links from its earliest span (under-cycle) first repeat: cycle-b.
        #expect(line("cycle-b").contains("parent=\(Self.spanID(1)) (parent cycle)"))
        #expect(!line("cycle-a").contains("(parent cycle)") && !line("cycle-c").contains("(parent cycle)"))
        #expect(Self.indentation(line("under-cycle")) == Self.indentation(line("cycle-b")) + 2)
        #expect(Self.indentation(line("cycle-c")) == Self.indentation(line("cycle-b")) + 2)
        #expect(Self.indentation(line("cycle-a")) == Self.indentation(line("cycle-c")) + 2)
        #expect(line("self").contains("(parent is itself)"))
        #expect(line("orphan").contains("parent=\(Self.spanID(99)) (absent)"))
        #expect(line("dup-first").contains("(span ID used by 2 spans)") && line("dup-second").contains("(span ID used by 2 spans)"))
        #expect(Self.indentation(line("dup-child")) == Self.indentation(line("dup-first")) + 2)
        #expect(Self.indentation(line("no-id")) == Self.indentation(line("dup-child")) + 2)
        #expect(line("ring-a").contains("(parent cycle)") != line("ring-b").contains("(parent cycle)"))
    }

    @Test("a parent cycle 20,000 spans long: every span once")
    func longCycle() throws {
        let count = 20_000
        let spans = (0..<count).map { Self.span("r\($0)", id: $0, parent: ($0 + 1) % count, start: 1_000 + $0) }
        let result = try Self.render(spans)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = Self.spanLines(result.stdout)
        #expect(lines.count == count && lines.values.allSatisfy { $0.count == 1 })
        #expect(result.stdout.components(separatedBy: "(parent cycle)").count == 2)
    }

    @Test("a filter that hides a parent: its children are shown as roots with the parent named")
    func filteredParent() throws {
        let spans = [Self.span("top", id: 1, parent: nil), Self.span("kid", id: 2, parent: 1, start: 1_001)]
        let result = try Self.render(spans, extra: ["--name", "kid"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("kid") && !result.stdout.contains("top"))
        #expect(result.stdout.contains("parent=\(Self.spanID(1)) (absent)"))
    }
}
