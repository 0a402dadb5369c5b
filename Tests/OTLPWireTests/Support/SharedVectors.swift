import Foundation
@testable import OTLPWire

/// The OTLP test vectors the tests own (`Tests/Fixtures/vectors`, copied from the shared reference set), or `$OTLPWIRE_VECTORS`.
enum SharedVectors {
    static let root: URL = {
        if let path = ProcessInfo.processInfo.environment["OTLPWIRE_VECTORS"] { return URL(fileURLWithPath: path) }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return repository.appendingPathComponent("Tests/Fixtures/vectors")
    }()

    struct Entry: @unchecked Sendable, CustomStringConvertible {
        let raw: [String: Any]
        var path: String { raw["path"] as! String }
        var kind: OTLPSignal { OTLPSignal(rawValue: raw["kind"] as! String)! }
        var framing: String { raw["framing"] as! String }
        var compression: String { raw["compression"] as! String }
        var valid: Bool { raw["valid"] as! Bool }
        var records: Int { raw["records"] as! Int }
        var items: Int { (raw["spans"] ?? raw["log_records"]) as! Int }
        var json: String? { raw["json"] as? String }
        var canonical: Bool { raw["canonical_encoding"] as? Bool ?? false }
        var expect: [String: Any] { raw["expect"] as! [String: Any] }
        var url: URL { SharedVectors.root.appendingPathComponent(path) }
        var description: String { path }
    }

    nonisolated(unsafe) static let manifest: [String: Any] = {
        let data = try! Data(contentsOf: root.appendingPathComponent("manifest.json"))
        return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
    }()

    static let entries: [Entry] = (manifest["files"] as! [[String: Any]]).map(Entry.init)

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }
}

/// Semantic JSON equality as the vectors' README defines it: key order and number spelling do not matter,
/// NaN equals NaN, the sign of zero does matter.
enum SemanticJSON {
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { try JSONParser.parse($0) }
    }

    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            guard let dx = Double(x), let dy = Double(y) else { return x == y }
            return dx == dy && dx.sign == dy.sign
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            let ys = Dictionary(y, uniquingKeysWith: { $1 })
            return x.allSatisfy { key, value in ys[key].map { equal(value, $0) } ?? false }
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        default:
            return a == b
        }
    }

    /// A readable first difference, for test failure messages.
    static func difference(_ a: JSONValue, _ b: JSONValue, path: String = "$") -> String? {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            let xs = Dictionary(x, uniquingKeysWith: { $1 }), ys = Dictionary(y, uniquingKeysWith: { $1 })
            for key in Set(xs.keys).union(ys.keys).sorted() {
                guard let xv = xs[key] else { return "\(path).\(key): missing on the left" }
                guard let yv = ys[key] else { return "\(path).\(key): missing on the right" }
                if let d = difference(xv, yv, path: "\(path).\(key)") { return d }
            }
            return nil
        case (.array(let x), .array(let y)):
            if x.count != y.count { return "\(path): \(x.count) vs \(y.count) elements" }
            for (i, (xv, yv)) in zip(x, y).enumerated() { if let d = difference(xv, yv, path: "\(path)[\(i)]") { return d } }
            return nil
        default:
            return equal(a, b) ? nil : "\(path): \(a) vs \(b)"
        }
    }
}
