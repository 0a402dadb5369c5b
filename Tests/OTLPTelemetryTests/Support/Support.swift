import Foundation
import OTLPWire
@testable import OTLPTelemetry
import OTLPTestSupport

/// A sink that collects bytes and can be held closed (writes wait) or made to fail.
final class ControllableSink: OTLPByteSink, @unchecked Sendable {
    private let condition = NSCondition()
    private var held = false
    /// Writes waiting for ``release()`` now.
    private var heldWrites = 0
    private(set) var bytes: [UInt8] = []
    var failure: OTLPWriteError?

    func hold() { condition.lock(); held = true; condition.unlock() }
    func release() { condition.lock(); held = false; condition.broadcast(); condition.unlock() }

    /// Blocks until a write waits for ``release()`` (the exporter holds a batch it cannot write).
    func waitUntilAWriteIsHeld() {
        condition.lock()
        defer { condition.unlock() }
        while heldWrites == 0 { condition.wait() }
    }

    func write(_ data: UnsafeRawBufferPointer) throws(OTLPWriteError) {
        condition.lock()
        defer { condition.unlock() }
        if held {
            heldWrites += 1
            condition.broadcast()
            while held { condition.wait() }
            heldWrites -= 1
        }
        if let failure { throw failure }
        bytes.append(contentsOf: data)
    }

    func sync() throws(OTLPWriteError) {}

    var collected: [UInt8] { condition.lock(); defer { condition.unlock() }; return bytes }
}

/// Every record of a byte stream or file, decoded.
func readAll(_ bytes: [UInt8]) throws -> [OTLPPayload] {
    let reader = try OTLPRecordReader(source: OTLPMemorySource(bytes))
    var out: [OTLPPayload] = []
    while let record = try reader.next() { out.append(record.payload) }
    return out
}

func spans(_ payloads: [OTLPPayload]) -> [OTLPSpan] {
    payloads.flatMap { payload -> [OTLPSpan] in
        guard case .traces(let data) = payload else { return [] }
        return data.resourceGroups.flatMap { $0.scopeGroups.flatMap(\.items) }
    }
}

func logRecords(_ payloads: [OTLPPayload]) -> [OTLPLogRecord] {
    payloads.flatMap { payload -> [OTLPLogRecord] in
        guard case .logs(let data) = payload else { return [] }
        return data.resourceGroups.flatMap { $0.scopeGroups.flatMap(\.items) }
    }
}

/// Collects diagnostic messages.
final class Messages: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    func add(_ message: String) { lock.withLock { messages.append(message) } }
    var all: [String] { lock.withLock { messages } }
}

/// An array several threads append to.
final class OTLPLockedArray<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var elements: [Element] = []
    var values: [Element] { lock.withLock { elements } }
    func append(_ element: Element) { lock.withLock { elements.append(element) } }
}
