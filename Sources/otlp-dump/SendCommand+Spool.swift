import ArgumentParser
import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPWire

extension SendCommand {
    /// `send --spool DIR`: uploads the spool's traces and logs in order, acknowledging each record in the
    /// spool once answered and deleting files when all their records are; stops at the first record the
    /// collector cannot be reached for.
    func sendSpool(_ directory: String) throws {
        let configuration = exporterConfiguration
        var tally = SendTally()
        var status = ExitCode.success
        let progress = SendProgress()
        let counters = OTLPTelemetryCounters()
        let messages = DiagnosticsBuffer()
        var unreadableRecords = 0
        let signalDirectories = OTLPSignal.sdkSignals.map { (directory.hasSuffix("/") ? directory : directory + "/") + "\($0)" }
        var isDirectory: ObjCBool = false
        guard
            signalDirectories.contains(where: {
                FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && isDirectory.boolValue
            })
        else {
            let name = directory.split(separator: "/").last.map(String.init) ?? directory
            let hint =
                OTLPSignal.sdkSignals.contains { "\($0)" == name }
                ? " (give the spool directory: the one that holds traces/ and logs/)" : ""
            Output.diagnostic("--spool \(TerminalText.escaped(directory)): not a spool directory: neither traces/ nor logs/ inside\(hint)")
            throw ExitStatus.ioError
        }
        for signal in OTLPSignal.sdkSignals {
            let signalDirectory = (directory.hasSuffix("/") ? directory : directory + "/") + "\(signal)"
            guard FileManager.default.fileExists(atPath: signalDirectory) else { continue }
            guard !tally.unreachable else {
                // Stopped at the other signal: this one is left as it is, and said so.
                tally.untried.append("\(signal)/")
                continue
            }
            guard let endpoint = configuration.resolved(for: signal) else {
                throw ValidationError("--endpoint: not an absolute http or https URL: \(TerminalText.escaped(redactedEndpoint))")
            }
            let queue: OTLPSpoolQueue
            do throws(OTLPWriteError) {
                queue = try OTLPSpoolQueue(
                    directory: signalDirectory, signal: signal, maxBytes: OTLPSpoolConfiguration.maxBytesRange.upperBound,
                    durability: .flush)
            } catch {
                progress.clear()
                Output.diagnostic("--spool: \(TerminalText.escaped("\(error)"))")
                status = ExitStatus.ioError
                continue
            }
            defer { queue.release() }
            if queue.damagedRecords > 0 { status = ExitStatus.damagedInput }
            if queue.isCheckpointDistrusted {
                Output.diagnostic(
                    "--spool: \(TerminalText.escaped(signalDirectory)): its checkpoint does not match its files; every record is sent (some may arrive twice)"
                )
            }
            if queue.damagedRecords > 0 {
                Output.diagnostic(
                    "--spool: \(TerminalText.escaped(signalDirectory)): \(queue.damagedRecords) torn record(s) cut off the end of a file left open by a crash"
                )
            }
            let sender = OTLPHTTPSender(signal: signal, endpoint: endpoint)
            defer { sender.shutdown() }
            tally.signalsPosted.insert(signal)
            let uploader = OTLPSpoolUploader(queue: queue, sender: sender, counters: counters, diagnostics: messages.append)
            upload: while true {
                switch uploader.uploadNext() {
                case .empty:
                    break upload
                case .acknowledged(let exported, let rejected, let quarantined):
                    // As `send FILE` counts: the items of accepted requests, the rejected among them apart; the
                    // items of requests refused for their content (kept in the quarantine) as not accepted.
                    if exported + rejected - quarantined > 0 {
                        tally.accepted(items: exported + rejected - quarantined, bytes: 0, signal: signal)
                        tally.rejectedItems += rejected - quarantined
                    }
                    if quarantined > 0 {
                        tally.refused(items: quarantined, signal: signal)
                        tally.quarantinedItems += quarantined
                    }
                case .unreadable:
                    status = ExitStatus.damagedInput
                    unreadableRecords += 1
                case .failed(let reason):
                    progress.clear()
                    Output.diagnostic(
                        "--spool: \(TerminalText.escaped(signalDirectory)): not sent: \(reason); stopping (\(queue.pendingItems) items left in the spool)"
                    )
                    tally.unreachable = true
                    tally.leftInSpool += queue.pendingItems
                    break upload
                case .spoolError(let reason):
                    progress.clear()
                    Output.diagnostic("--spool: a spool error: \(reason); stopping (\(queue.pendingItems) items left in it)")
                    status = ExitStatus.ioError
                    break upload
                }
                // The uploader's messages are made printable already.
                for message in messages.take() {
                    progress.clear()
                    Output.diagnostic(message)
                }
                progress.update(tally)
            }
        }
        for message in messages.take() { Output.diagnostic(message) }
        progress.clear()
        let snapshot = counters.snapshot
        let damagedItems = snapshot.spansDropped[.spoolDamaged, default: 0] + snapshot.logRecordsDropped[.spoolDamaged, default: 0]
        if unreadableRecords > 0 || damagedItems > 0 {
            Output.diagnostic(
                "--spool: \(unreadableRecords) unreadable record(s) skipped; \(damagedItems) item(s) lost to damage in the spool (\(OTLPDropReason.spoolDamaged))"
            )
        }
        // Items lost to damage in the spool (reported above) make it damaged input.
        if damagedItems > 0, status == .success {
            status = ExitStatus.damagedInput
        }
        tally.bytes = snapshot.bytesWritten
        tally.retries = snapshot.spanExportRetries + snapshot.logRecordExportRetries
        let output = Output.standard
        output.write(tally.summary(endpoint: postedTo(tally)) + "\n")
        if tally.collectorRefused { status = ExitStatus.collectorRefused }
        status = output.finish(status: status)
        if status != .success { throw status }
    }
}

/// Diagnostics of the uploader, collected to be printed between records.
final class DiagnosticsBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []

    @Sendable func append(_ message: String) {
        lock.withLock { messages.append(message) }
    }

    func take() -> [String] {
        lock.withLock {
            defer { messages = [] }
            return messages
        }
    }
}
