import COTLPProto
import COTLPShims
import CProtobufC
import Foundation
import OTLPTestSupport
import Testing
@testable import OTLPWire

/// `otlp-dump validate` judges a protobuf record by the pre-scan alone (`OTLPRecordReader.validateNext`, which
/// no longer unpacks it). That is sound only if the scan accepts nothing protobuf-c 1.4.1's unpack refuses and
/// counts the items the unpacked request holds. These tests hold the two side by side, as traces, logs and
/// metrics alike, on every request of the test vectors and fixtures, the reference package's metrics requests,
/// generated requests, and thousands of seeded mutations of them: whenever the scan (with the merge it may
/// need) accepts, protobuf-c unpacks the same bytes, with as many spans, log records or metrics, and the
/// decoder builds the model from them.
@Suite("Pre-scan against protobuf-c's unpack")
struct ScanUnpackAgreementTests {
    static let signals: [OTLPSignal] = [.traces, .logs, .metrics]

    /// Every request the tests own: the vectors' `.pb` files and the records of their uncompressed framed
    /// files, the regression fixtures, the reference package's metrics requests, and generated ones.
    static let seeds: [(name: String, bytes: [UInt8])] = {
        var seeds: [(String, [UInt8])] = []
        let fileManager = FileManager.default
        for directory in ["traces", "logs", "bad"] {
            let url = SharedVectors.root.appendingPathComponent(directory)
            for name in ((try? fileManager.contentsOfDirectory(atPath: url.path)) ?? []).sorted() where name.hasSuffix(".pb") {
                if let data = try? SharedVectors.bytes("\(directory)/\(name)") { seeds.append(("\(directory)/\(name)", data)) }
            }
        }
        for name in ["traces-mixed", "logs-mixed"] {
            if let data = try? SharedVectors.bytes("framed/\(name).u32be.bin") {
                for (index, record) in OTLPFramedRecords.u32be(data).enumerated() { seeds.append(("\(name).u32be #\(index)", record)) }
            }
        }
        if let data = try? SharedVectors.bytes("framed/traces-edge.varint.bin") {
            for (index, record) in varintRecords(data).enumerated() { seeds.append(("traces-edge.varint #\(index)", record)) }
        }
        let regressions = SharedVectors.root.deletingLastPathComponent().appendingPathComponent("regressions")
        for name in ["bare-logs-envelope-123-bytes.bin", "bare-traces-envelope-123-bytes.bin"] {
            if let data = try? Data(contentsOf: regressions.appendingPathComponent(name)) { seeds.append((name, [UInt8](data))) }
        }
        if let metrics = try? MetricsReferenceTests.fixtures.get() {
            for (index, request) in (metrics.requests + metrics.merged).enumerated() {
                seeds.append(("metrics reference #\(index)", request))
            }
        }
        seeds.append(("generated traces", OTLPEncoder().encode(SampleTelemetry.traces(4))))
        seeds.append(("generated logs", OTLPEncoder().encode(SampleTelemetry.logs(4))))
        return seeds
    }()

    /// The records of a varint-framed file.
    static func varintRecords(_ bytes: [UInt8]) -> [[UInt8]] {
        var records: [[UInt8]] = []
        var position = 0
        while position < bytes.count {
            var length = 0
            var shift = 0
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                length |= Int(byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            guard length <= bytes.count - position else { break }
            records.append(Array(bytes[position..<position + length]))
            position += length
        }
        return records
    }

    /// The spans, log records or metrics protobuf-c unpacks from `bytes` as `signal`; `nil` when unpack fails.
    static func unpackedItems(_ bytes: UnsafeRawBufferPointer, as signal: OTLPSignal) -> Int? {
        let arena = ProtobufCArena()
        defer { arena.reset() }
        let unpacked = try? arena.withAllocator { allocator in
            COTLPShims_unpack_request(
                OTLPRequestKind(signal).shimsKind, allocator, bytes.count, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        }
        guard let request = unpacked ?? nil else { return nil }
        var items = 0
        for group in UnsafeBufferPointer(start: request.pointee.resource_groups, count: request.pointee.n_resource_groups) {
            guard let group else { return nil }
            for scopeGroup in UnsafeBufferPointer(start: group.pointee.scope_groups, count: group.pointee.n_scope_groups) {
                guard let scopeGroup else { return nil }
                items += scopeGroup.pointee.n_items
            }
        }
        return items
    }

    /// What the model holds after decoding `bytes` as `signal`; `nil` when decoding fails.
    static func decodedItems(_ bytes: UnsafeRawBufferPointer, as signal: OTLPSignal, decoder: OTLPDecoder) -> Int? {
        switch signal {
        case .traces: (try? decoder.decodeTraces(bytes))?.itemCount
        case .logs: (try? decoder.decodeLogs(bytes))?.itemCount
        case .metrics: (try? decoder.decodeMetrics(bytes))?.itemCount
        }
    }

    /// Tallies of a run: how many readings the scan accepted and refused, and the disagreements found.
    struct Tally {
        var accepted = 0
        var refused = 0
        var disagreements: [String] = []

        /// Prints what the readings of `what` came to, and expects at least `minimumAccepted` accepted and
        /// `minimumRefused` refused readings (so both sides of the claim were tried) and no disagreement.
        func expectAgreement(
            _ what: String, minimumAccepted: Int, minimumRefused: Int = 0, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            print("\(what), accepted \(accepted), refused \(refused) readings")
            #expect(
                accepted >= minimumAccepted && refused >= minimumRefused, "accepted \(accepted), refused \(refused)",
                sourceLocation: sourceLocation)
            #expect(disagreements.isEmpty, "\(disagreements.prefix(5).joined(separator: "\n"))", sourceLocation: sourceLocation)
        }
    }

    /// Reads `bytes` as each signal and records whether the claim holds: the scan's verdict (what validate
    /// uses) accepting implies protobuf-c unpacking the same bytes with the same item count, and decoding too.
    static func check(_ bytes: [UInt8], _ label: String, decoder: OTLPDecoder, into tally: inout Tally) {
        for signal in signals {
            bytes.withUnsafeBytes { buffer in
                guard let prepared = try? decoder.prepare(buffer, as: signal) else {
                    tally.refused += 1
                    return
                }
                tally.accepted += 1
                let unpacked = (try? prepared.withBytes(buffer) { message in unpackedItems(message, as: signal) }) ?? nil
                let decoded = decodedItems(buffer, as: signal, decoder: decoder)
                if unpacked != prepared.items || decoded != prepared.items {
                    let hex = bytes.prefix(96).map { String(format: "%02x", $0) }.joined()
                    tally.disagreements.append(
                        "\(label) as \(signal): scan accepts \(prepared.items) items, protobuf-c unpacks \(unpacked.map(String.init) ?? "nothing"), decoding gives \(decoded.map(String.init) ?? "nothing") [\(bytes.count) bytes: \(hex)]"
                    )
                }
            }
        }
    }

    /// One random change to `fields`, field by field.
    static func mutate(_ fields: inout [WireField], random: inout SplitMix64) {
        let paths = WireField.paths(fields)
        guard !paths.isEmpty else {
            fields.append(WireField(number: UInt64(random.int(1...20)), wire: [0, 1, 2, 5][random.below(4)], value: [0]))
            return
        }
        let path = paths[random.below(paths.count)]
        let choice = random.below(12)
        WireField.modify(&fields, at: path) { list, index in
            switch choice {
            case 0: list.insert(list[index], at: index + 1)  // a field twice (singular messages merge, scalars replace)
            case 1: list.remove(at: index)
            case 2: list[index].wire = [0, 1, 2, 5, 3, 4, 6, 7][random.below(random.chance(80) ? 4 : 8)]  // another wire type
            case 3: list[index].number = [0, UInt64(random.int(1...20)), 0x1FFF_FFFF, 0x2000_0000][random.chance(85) ? 1 : random.below(4)]
            case 4: list[index].tagBytes = random.int(2...7)  // an overlong tag
            case 5: list[index].lengthBytes = random.int(2...7)  // an overlong length
            case 6:  // a value one to nine bytes shorter or longer (a packed run that no longer divides into elements)
                list[index].children = nil
                if random.chance(50) {
                    list[index].value.removeLast(min(list[index].value.count, random.int(1...9)))
                } else {
                    list[index].value += (0..<random.int(1...9)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                }
            case 7:  // a bit flipped in the value
                list[index].children = nil
                if !list[index].value.isEmpty {
                    list[index].value[random.below(list[index].value.count)] ^= 1 << UInt8(random.below(8))
                }
            case 8:  // the value ends in a continuation byte, or holds a varint of 10 or 11 bytes
                list[index].children = nil
                list[index].value += random.chance(50) ? [0x80] : Array(repeating: 0xFF, count: random.int(9...10)) + [0x01]
            case 9: if index + 1 < list.count { list.swapAt(index, index + 1) }
            case 10: list.insert(list[index], at: random.below(list.count + 1))  // the same field elsewhere in its message
            default:  // a field of another number and wire type, with a small value
                let wire: UInt8 = [0, 1, 2, 5][random.below(4)]
                let value: [UInt8] =
                    wire == 0 ? [1] : wire == 1 ? [UInt8](repeating: 0, count: 8) : wire == 5 ? [0, 0, 0, 0] : [0x08, 0x01]
                list.insert(WireField(number: UInt64(random.int(1...20)), wire: wire, value: value), at: index)
            }
        }
    }

    /// One random change to the bytes themselves.
    static func mutateBytes(_ bytes: inout [UInt8], random: inout SplitMix64) {
        guard !bytes.isEmpty else {
            bytes = [UInt8(truncatingIfNeeded: random.next())]
            return
        }
        let at = random.below(bytes.count)
        switch random.below(5) {
        case 0: bytes[at] ^= 1 << UInt8(random.below(8))
        case 1: bytes.removeLast(bytes.count - at)  // truncated
        case 2: bytes.insert(contentsOf: (0..<random.int(1...4)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
        case 3: bytes.removeSubrange(at..<min(bytes.count, at + random.int(1...4)))
        default:  // a run of bytes duplicated in place
            let end = min(bytes.count, at + random.int(1...16))
            bytes.insert(contentsOf: bytes[at..<end], at: end)
        }
    }

    @Test("every request of the vectors, fixtures and reference: the scan accepts only what protobuf-c unpacks, with its item count")
    func seedsAgree() {
        let decoder = OTLPDecoder()
        var tally = Tally()
        for seed in Self.seeds { Self.check(seed.bytes, seed.name, decoder: decoder, into: &tally) }
        #expect(Self.seeds.count >= 40, "the seeds were not all found (\(Self.seeds.count))")
        tally.expectAgreement("seeds: \(Self.seeds.count)", minimumAccepted: 30)
    }

    @Test("every field of every seed with each wire type and overlong tags and lengths: the scan accepts only what protobuf-c unpacks")
    func everyFieldWithEveryWireType() {
        let decoder = OTLPDecoder()
        var tally = Tally()
        var mutants = 0
        var random = SplitMix64(state: 0x31)
        for seed in Self.seeds where seed.bytes.count <= 4096 {
            guard let fields = WireField.parse(seed.bytes[...]) else { continue }
            // About 40 fields of each seed, drawn evenly (the descriptor test below covers every field type).
            let paths = WireField.paths(fields)
            for path in paths where paths.count <= 40 || random.below(paths.count) < 40 {
                // Each wire type; tags and lengths in 5 bytes (protobuf-c's most) and in 6.
                let variants: [(wire: UInt8?, tagBytes: Int, lengthBytes: Int)] = [
                    (0, 0, 0), (1, 0, 0), (2, 0, 0), (5, 0, 0), (nil, 5, 0), (nil, 6, 0), (nil, 0, 5), (nil, 0, 6),
                ]
                for variant in variants {
                    var mutant = fields
                    WireField.modify(&mutant, at: path) { list, index in
                        if let wire = variant.wire { list[index].wire = wire }
                        list[index].tagBytes = variant.tagBytes
                        list[index].lengthBytes = variant.lengthBytes
                    }
                    let bytes = WireField.encode(mutant)
                    guard bytes != seed.bytes else { continue }
                    mutants += 1
                    Self.check(bytes, "\(seed.name) field \(path)", decoder: decoder, into: &tally)
                }
            }
        }
        #expect(mutants >= 3000, "only \(mutants) mutants")
        tally.expectAgreement("every field with every wire type: \(mutants) mutants", minimumAccepted: 1000, minimumRefused: 1000)
    }

    /// Every message type protobuf-c knows below `request`, each with the field numbers leading to it from the
    /// request (the shortest such path), found through protobuf-c's own descriptors.
    static func messagePaths(
        _ request: UnsafePointer<ProtobufCMessageDescriptor>
    ) -> [(UnsafePointer<ProtobufCMessageDescriptor>, [UInt64])] {
        var found: [(UnsafePointer<ProtobufCMessageDescriptor>, [UInt64])] = [(request, [])]
        var seen: Set<UnsafePointer<ProtobufCMessageDescriptor>> = [request]
        var next = 0
        while next < found.count {
            let (descriptor, path) = found[next]
            next += 1
            for field in UnsafeBufferPointer(start: descriptor.pointee.fields, count: Int(descriptor.pointee.n_fields))
            where field.type == PROTOBUF_C_TYPE_MESSAGE {
                let child = field.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
                if seen.insert(child).inserted { found.append((child, path + [UInt64(field.id)])) }
            }
        }
        return found
    }

    @Test(
        "every field protobuf-c knows, in every message of each signal, with each wire type and assorted values, and the numbers around them"
    )
    func everyDescriptorFieldWithEveryWireType() {
        let decoder = OTLPDecoder()
        var tally = Tally()
        let requests: [(OTLPSignal, UnsafePointer<ProtobufCMessageDescriptor>)] = [
            (.traces, withUnsafePointer(to: opentelemetry__proto__collector__trace__v1__export_trace_service_request__descriptor) { $0 }),
            (.logs, withUnsafePointer(to: opentelemetry__proto__collector__logs__v1__export_logs_service_request__descriptor) { $0 }),
            (
                .metrics,
                withUnsafePointer(to: opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__descriptor) { $0 }
            ),
        ]
        // Values for each wire type: varints of 1 and 10 bytes, fixed values, and payloads that are empty, a small
        // message, 7, 8 or 16 zero bytes (packed fixed64: whole or not), varints whole or cut.
        let values: [(wire: UInt8, value: [UInt8])] = [
            (0, [0x01]), (0, [UInt8](repeating: 0xFF, count: 9) + [0x01]), (1, [UInt8](repeating: 0, count: 8)), (5, [0, 0, 0, 0]),
            (2, []), (2, [0x08, 0x01]), (2, [UInt8](repeating: 0, count: 7)), (2, [UInt8](repeating: 0, count: 8)),
            (2, [UInt8](repeating: 0x41, count: 16)), (2, [0x80]), (2, [0x01, 0x96, 0x01]),
        ]
        var messages = 0
        for (signal, request) in requests {
            for (descriptor, path) in Self.messagePaths(request) {
                messages += 1
                let known = UnsafeBufferPointer(start: descriptor.pointee.fields, count: Int(descriptor.pointee.n_fields)).map {
                    UInt64($0.id)
                }
                for number in Set(known + [1, (known.max() ?? 0) + 1, 0x1FFF_FFFF]) {
                    for (wire, value) in values {
                        var inner = [WireField(number: number, wire: wire, value: value)]
                        for level in path.reversed() { inner = [WireField(number: level, wire: 2, value: [], children: inner)] }
                        Self.check(
                            WireField.encode(inner), "\(signal) path \(path) field \(number) wire \(wire) value \(value)", decoder: decoder,
                            into: &tally)
                    }
                }
            }
        }
        #expect(messages >= 30, "only \(messages) message types reached")
        tally.expectAgreement("descriptors: \(messages) message types", minimumAccepted: 500, minimumRefused: 500)
    }

    @Test("thousands of seeded mutations (fields duplicated, dropped, renumbered, retyped, overlong; bytes flipped, cut, inserted)")
    func mutationsAgree() {
        let decoder = OTLPDecoder()
        var tally = Tally()
        var random = SplitMix64(state: 0x5CA7_0F_C0DE)
        var mutants = 0
        let small = Self.seeds.filter { $0.bytes.count <= 8192 }
        for seed in small {
            let fields = WireField.parse(seed.bytes[...])
            for round in 0..<80 {
                var bytes: [UInt8]
                if var tree = fields, random.chance(75) {
                    for _ in 0..<random.int(1...3) { Self.mutate(&tree, random: &random) }
                    bytes = WireField.encode(tree)
                    if random.chance(15) { Self.mutateBytes(&bytes, random: &random) }
                } else {
                    bytes = seed.bytes
                    for _ in 0..<random.int(1...3) { Self.mutateBytes(&bytes, random: &random) }
                }
                mutants += 1
                Self.check(bytes, "\(seed.name) mutant \(round)", decoder: decoder, into: &tally)
            }
        }
        #expect(mutants >= 3000, "only \(mutants) mutants")
        tally.expectAgreement("mutations: \(mutants) mutants", minimumAccepted: 1000, minimumRefused: 1000)
    }
}
