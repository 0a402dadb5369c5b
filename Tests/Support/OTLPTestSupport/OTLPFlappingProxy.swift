public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of a test server that goes down and comes back on a fixed period, as a
/// flapping collector does: while up it accepts connections and relays them to the target; while down its
/// port refuses connections, and every connection it relayed was cut (shut down both ways, mid-request or
/// not).
///
/// The period is a property of the proxy, not of the test: a test paces itself with
/// ``waitForTransitions(_:)``, which waits on the proxy's own changes.
public final class OTLPFlappingProxy: @unchecked Sendable {
    /// The proxy's port on 127.0.0.1.
    public let port: Int
    /// The port relayed to.
    public let targetPort: Int
    /// How long each up and each down phase lasts.
    public let periodSeconds: Double

    private let state = NSCondition()
    private var isStopping = false
    private var isFlapping = true
    private var transitionCount = 0
    private var connectionsCut = 0
    private var connectionsAccepted = 0
    /// Live relays: the client's and the target's descriptors.
    private var relays: [Int: (client: Int32, target: Int32)] = [:]
    private var controller: Thread?
    private var controllerDone = false

    /// Starts flapping, up first, on a port of its own.
    public init(targetPort: Int, periodSeconds: Double) throws {
        self.targetPort = targetPort
        self.periodSeconds = periodSeconds
        port = try OTLPFreePort.unused()
        let thread = Thread { [self] in run() }
        thread.name = "OTLPFlappingProxy"
        controller = thread
        thread.start()
    }

    /// Up and down changes so far.
    public var transitions: Int { state.withLock { transitionCount } }
    /// Connections accepted and relayed so far.
    public var accepted: Int { state.withLock { connectionsAccepted } }
    /// Relayed connections cut by going down so far.
    public var cut: Int { state.withLock { connectionsCut } }

    /// Waits until the proxy changed between up and down `count` more times.
    public func waitForTransitions(_ count: Int) {
        state.withLock {
            let target = transitionCount + count
            while transitionCount < target && !isStopping { state.wait() }
        }
    }

    /// Ends the flapping: the proxy comes up (if down) and stays up until ``stop()``.
    public func stayUp() {
        state.withLock {
            isFlapping = false
            state.broadcast()
        }
    }

    /// Closes the port and every relayed connection; returns when the proxy's threads have ended.
    public func stop() {
        state.withLock {
            isStopping = true
            state.broadcast()
            while !controllerDone || !relays.isEmpty { state.wait() }
        }
    }

    // MARK: The controller

    private func run() {
        var up = true
        var listener: Int32 = -1
        phases: while true {
            let phaseEnd = Date(timeIntervalSinceNow: periodSeconds)
            while true {
                let (stopping, flapping) = state.withLock { (isStopping, isFlapping) }
                if stopping { break phases }
                // Asked to stay up: a down phase ends at once, an up phase lasts until stop().
                if !flapping && !up { break }
                let remaining = phaseEnd.timeIntervalSinceNow
                if flapping && remaining <= 0 { break }
                let waitMilliseconds = Int32(max(1, min(50, flapping ? remaining * 1000 : 50)))
                if up && listener < 0 { listener = listen() }
                if up && listener >= 0 {
                    var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                    if poll(&poller, 1, waitMilliseconds) > 0 { acceptOne(listener) }
                } else {
                    state.withLock { _ = state.wait(until: Date(timeIntervalSinceNow: Double(waitMilliseconds) / 1000)) }
                }
            }
            if up {
                // Going down: the port refuses connections, and every relayed one is cut.
                if listener >= 0 { close(listener) }
                listener = -1
                state.withLock {
                    connectionsCut += relays.count
                    cutRelays()
                }
            }
            up.toggle()
            state.withLock {
                transitionCount += 1
                state.broadcast()
            }
        }
        if listener >= 0 { close(listener) }
        state.withLock {
            cutRelays()
            controllerDone = true
            state.broadcast()
        }
    }

    /// Shuts down both ends of every relayed connection (their threads then close them). Called with the
    /// state locked.
    private func cutRelays() {
        for relay in relays.values {
            Glibc.shutdown(relay.client, Int32(SHUT_RDWR))
            Glibc.shutdown(relay.target, Int32(SHUT_RDWR))
        }
    }

    /// A listening socket on the proxy's port (the port was released by the last down phase; SO_REUSEADDR
    /// lets it be bound again at once), or -1 if it cannot be had now (the next up phase tries again).
    private func listen() -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = OTLPFreePort.loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    private func acceptOne(_ listener: Int32) {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        let target = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = OTLPFreePort.loopback(port: targetPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(target, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard target >= 0, connected == 0 else {
            if target >= 0 { close(target) }
            close(client)
            return
        }
        let key = state.withLock {
            connectionsAccepted += 1
            relays[connectionsAccepted] = (client, target)
            return connectionsAccepted
        }
        Thread.detachNewThread { [self] in
            Self.relay(client, target)
            state.withLock {
                relays[key] = nil
                close(client)
                close(target)
                state.broadcast()
            }
        }
    }

    /// Copies bytes both ways until either side ends or fails.
    private static func relay(_ client: Int32, _ target: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var pollers = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: target, events: Int16(POLLIN), revents: 0)]
        while true {
            pollers[0].revents = 0
            pollers[1].revents = 0
            guard poll(&pollers, 2, -1) > 0 else { if errno == EINTR { continue } else { return } }
            for (index, poller) in pollers.enumerated() where poller.revents != 0 {
                let from = index == 0 ? client : target
                let to = index == 0 ? target : client
                let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                var sent = 0
                while sent < count {
                    let written = buffer.withUnsafeBytes { send(to, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                    guard written > 0 else { return }
                    sent += written
                }
            }
        }
    }
}
