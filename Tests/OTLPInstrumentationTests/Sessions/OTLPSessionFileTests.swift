import Foundation
import OTLPInstrumentation
import OTLPTestSupport
import OTLPTesting
import OTLPWire
import Testing

/// The session file's writes: what is found at its temporary path is never waited on.
@Suite("OTLPSessionManager session file")
struct OTLPSessionFileTests {
    @Test(
        "a FIFO at the session file's temporary path (session.tmp) does not hang shutdown() (regression: the writer waited for a reader, and shutdown() for the writer): the session is written"
    )
    func fifoAtTemporaryPath() throws {
        let directory = OTLPTemporaryDirectory.unusedPath("otlp-sessions").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let trap = try OTLPFIFOTrap(path: directory + "/session.tmp")
        let outcome = trap.run { () -> (id: String, error: String?) in
            let manager = OTLPSessionManager(directory: directory, clock: OTLPManualClock(), idGenerator: OTLPSequentialIDGenerator())
            manager.recordActivity()
            manager.shutdown()
            return (manager.currentSession.id, manager.persistenceError.map { "\($0)" })
        }
        let (id, error) = try #require(outcome, "still blocked after the safety bound")
        #expect(error == nil)
        let written = try String(contentsOfFile: directory + "/session", encoding: .utf8)
        #expect(written.hasPrefix(id + " "), "\(written)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/session.tmp"))
    }
}
