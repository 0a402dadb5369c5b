public import Foundation
public import OTLPTelemetry
public import OTLPWire
public import Tracing

/// Records app launches as `AppStart` spans: one cold launch per process (process start → first launch
/// end), and warm launches (foreground → launch end) after the app has been in the background.
///
/// The rules, as the app launch reference defines them:
/// - cold: the first launch-end notification ends it; it is `PRE_WARM` when the `ActivePrewarm`
///   environment variable is set, or when it took longer than `preWarmFallbackThreshold` (if not 0);
///   otherwise `COLD`. Later launch-end notifications never make a second cold launch;
/// - warm: recorded only after a hidden (background) event has fired; from the warm-start notification to
///   the next launch end; `WARM`;
/// - attributes `launch.type`, `launch_start_name`, `launch_end_name`, `active_prewarm`; scope
///   `software.amazon.opentelemetry.AppStart`. Thread-safe: notifications may arrive on any thread.
///
/// Beyond the reference, launch phases: ``phase(_:_:)`` around a closure and ``mark(_:)`` +
/// ``phase(_:from:to:)`` between marks record child spans of the cold `AppStart`, so a launch shows where
/// its time goes; `launch.process_start_to_instrumentation` is recorded automatically.
public final class AppLaunchInstrumentation<T: Tracer>: @unchecked Sendable {
    /// The instrumentation scope of `AppStart` spans.
    package static var scope: OTLPInstrumentationScope { OTLPInstrumentationScope(name: "software.amazon.opentelemetry.AppStart") }

    /// A launch type, as reported in `launch.type`.
    package enum LaunchType: String, Sendable {
        /// A launch of a process that was not running, nor prewarmed.
        case cold = "COLD"
        /// A return to the foreground of a process that was already running.
        case warm = "WARM"
        /// A launch of a process the system had started ahead of time (prewarming).
        case preWarm = "PRE_WARM"
    }

    /// The notifications that start and end launches on this platform.
    package let provider: AppLaunchProvider
    private let tracer: T
    private let clock: any OTLPClock
    private let activePrewarm: Bool
    private let extraAttributes: [String: String]
    private let lock = NSLock()
    private var coldSpan: T.Span?
    private var coldFinished = false
    private var hiddenSeen = false
    private var warmStartUnixNano: UInt64?
    private var marks: [String: UInt64] = [:]
    /// The last launch milestone reached: its label and time (starts at the instrumentation's start).
    private var lastMilestone: (label: String, unixNano: UInt64)
    private var milestonesSeen: Set<String> = []
    private var observers: [any NSObjectProtocol] = []
    private let notificationCenter: NotificationCenter
    /// Told of each return to the foreground (activity that keeps a session alive), if given.
    private let sessions: OTLPSessionManager?

    /// Starts observing. `environment` is where `ActivePrewarm` is looked up (default: this process's);
    /// `attributes` are added to every `AppStart` span (an app version, a scenario); `sessions`, if given, is
    /// told of each return to the foreground (the provider's warm start notification) as activity.
    public init(
        provider: AppLaunchProvider, tracer: T, notificationCenter: NotificationCenter = .default,
        environment: [String: String] = ProcessInfo.processInfo.environment, clock: any OTLPClock = OTLPSystemClock(),
        attributes: [String: String] = [:], sessions: OTLPSessionManager? = nil
    ) {
        self.sessions = sessions
        self.provider = provider
        extraAttributes = attributes
        self.tracer = tracer
        self.clock = clock
        self.notificationCenter = notificationCenter
        activePrewarm = environment["ActivePrewarm"] != nil
        let start = Self.unixNano(provider.coldLaunchStartTime)
        let now = clock.nowUnixNano()
        lastMilestone = ("runtime_ready", max(now, start))
        let span = tracer.startSpan("AppStart", context: .topLevel, ofKind: .internal, at: Self.instant(start))
        // The app's attributes from the start: a launch recovered after a crash carries them too.
        if !attributes.isEmpty {
            for (key, value) in attributes { span.attributes[key] = value }
            (span as? OTLPTracingSpan)?.journalCheckpoint()
        }
        coldSpan = span
        // The part of the launch before the instrumentation runs (runtime and static initialisers, main()).
        tracer.startSpan("launch.process_start_to_instrumentation", context: span.context, ofKind: .internal, at: Self.instant(start))
            .end(at: Self.instant(max(now, start)))

        var names = [provider.coldEndNotification]
        if provider.warmEndNotification != provider.coldEndNotification { names.append(provider.warmEndNotification) }
        for name in names {
            observers.append(
                notificationCenter.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
                    self?.launchEnded(note.name)
                })
        }
        for milestone in provider.launchMilestones {
            observers.append(
                notificationCenter.addObserver(forName: milestone, object: nil, queue: nil) { [weak self] note in
                    self?.milestoneReached(note.name)
                })
        }
        observers.append(
            notificationCenter.addObserver(forName: provider.warmStartNotification, object: nil, queue: nil) { [weak self] _ in
                self?.warmStarted()
            })
        observers.append(
            notificationCenter.addObserver(forName: provider.hiddenNotification, object: nil, queue: nil) { [weak self] _ in
                self?.hidden()
            })
    }

    deinit {
        for observer in observers { notificationCenter.removeObserver(observer) }
    }

    /// Whether the cold launch has been recorded.
    public var isColdLaunchFinished: Bool { lock.withLock { coldFinished } }

    // MARK: - Phases

    /// Runs `body` as a launch phase: a child span of the cold `AppStart` while the cold launch is in
    /// progress; just runs `body` after it.
    public func phase<R>(_ name: String, _ body: () throws -> R) rethrows -> R {
        guard let parent = lock.withLock({ coldFinished ? nil : coldSpan }) else { return try body() }
        let span = tracer.startSpan(name, context: parent.context, ofKind: .internal, at: Self.instant(clock.nowUnixNano()))
        defer { span.end(at: Self.instant(clock.nowUnixNano())) }
        return try body()
    }

    /// Records the current time under `name`, for ``phase(_:from:to:)``.
    public func mark(_ name: String) {
        let now = clock.nowUnixNano()
        lock.withLock { marks[name] = now }
    }

    /// Records a phase between two marks (the end mark defaults to now). Returns `false` (and records
    /// nothing) when a mark is missing or the cold launch is over.
    @discardableResult
    public func phase(_ name: String, from startMark: String, to endMark: String? = nil) -> Bool {
        let now = clock.nowUnixNano()
        guard
            let (parent, start, end) = lock.withLock({ () -> (T.Span, UInt64, UInt64)? in
                guard !coldFinished, let parent = coldSpan, let start = marks[startMark] else { return nil }
                let end = endMark.map { marks[$0] } ?? now
                guard let end else { return nil }
                return (parent, start, end)
            })
        else { return false }
        tracer.startSpan(name, context: parent.context, ofKind: .internal, at: Self.instant(start)).end(at: Self.instant(max(end, start)))
        return true
    }

    // MARK: - Notifications

    /// Short label of a notification for phase names: `UIApplicationDidFinishLaunchingNotification` →
    /// `did_finish_launching`.
    static func label(_ name: Notification.Name) -> String {
        var raw = name.rawValue
        for prefix in ["OTLPWireApplication", "UIApplication", "UIScene", "NS"] where raw.hasPrefix(prefix) {
            raw.removeFirst(prefix.count); break
        }
        if raw.hasSuffix("Notification") { raw.removeLast("Notification".count) }
        var out = ""
        for character in raw {
            if character.isUppercase, !out.isEmpty { out += "_" }
            out += character.lowercased()
        }
        return out
    }

    func milestoneReached(_ name: Notification.Name) {
        let now = clock.nowUnixNano()
        let label = Self.label(name)
        lock.lock()
        guard !coldFinished, let parent = coldSpan, !milestonesSeen.contains(label) else {
            lock.unlock()
            return
        }
        milestonesSeen.insert(label)
        let previous = lastMilestone
        lastMilestone = (label, now)
        lock.unlock()
        tracer.startSpan(
            "launch.\(previous.label)_to_\(label)", context: parent.context, ofKind: .internal, at: Self.instant(previous.unixNano)
        )
        .end(at: Self.instant(max(now, previous.unixNano)))
    }

    func launchEnded(_ name: Notification.Name) {
        let now = clock.nowUnixNano()
        lock.lock()
        if !coldFinished, let span = coldSpan {
            coldFinished = true
            coldSpan = nil
            let previous = lastMilestone
            lock.unlock()
            if !provider.launchMilestones.isEmpty {
                tracer.startSpan(
                    "launch.\(previous.label)_to_\(Self.label(name))", context: span.context, ofKind: .internal,
                    at: Self.instant(previous.unixNano)
                )
                .end(at: Self.instant(max(now, previous.unixNano)))
            }
            let start = Self.unixNano(provider.coldLaunchStartTime)
            let seconds = Double(now &- start) / 1e9
            let threshold = provider.preWarmFallbackThreshold
            let type: LaunchType = activePrewarm || (threshold > 0 && seconds > threshold) ? .preWarm : .cold
            setLaunchAttributes(of: span, type: type, startName: provider.coldLaunchStartName, endName: name)
            span.end(at: Self.instant(max(now, start)))
            return
        }
        guard let warmStart = warmStartUnixNano else {
            lock.unlock()
            return  // a repeated launch end: no cold launch again, and no warm launch without a start
        }
        warmStartUnixNano = nil
        lock.unlock()
        let span = tracer.startSpan("AppStart", context: .topLevel, ofKind: .internal, at: Self.instant(warmStart))
        setLaunchAttributes(of: span, type: .warm, startName: provider.warmStartNotification.rawValue, endName: name)
        span.end(at: Self.instant(max(now, warmStart)))
    }

    /// The attributes every `AppStart` span carries, cold, pre-warm or warm, plus the app's own.
    private func setLaunchAttributes(of span: any Span, type: LaunchType, startName: String, endName: Notification.Name) {
        span.attributes["launch.type"] = type.rawValue
        span.attributes["launch_start_name"] = startName
        span.attributes["launch_end_name"] = endName.rawValue
        span.attributes["active_prewarm"] = activePrewarm
        for (key, value) in extraAttributes { span.attributes[key] = value }
    }

    func warmStarted() {
        let now = clock.nowUnixNano()
        lock.withLock {
            if hiddenSeen && coldFinished { warmStartUnixNano = now }
        }
        sessions?.recordActivity()
    }

    func hidden() {
        lock.withLock { hiddenSeen = true }
    }

    static func unixNano(_ date: Date) -> UInt64 {
        UInt64(max(0, (date.timeIntervalSince1970 * 1e9).rounded()))
    }

    static func instant(_ unixNano: UInt64) -> DefaultTracerClock.Timestamp {
        DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: unixNano)
    }
}

extension AppLaunchInstrumentation where T == OTLPTracer {
    /// The attribute set to `true` on launch spans recovered unended after a crash.
    package static var interruptedAttribute: String { "launch.interrupted" }

    /// Records launches through `telemetry`, under the `software.amazon.opentelemetry.AppStart` scope; the
    /// spans are journaled when `telemetry`'s open-span journal is open (see "When the app crashes").
    public convenience init(
        telemetry: OTLPTelemetry, provider: AppLaunchProvider = .linux(),
        notificationCenter: NotificationCenter = .default, environment: [String: String] = ProcessInfo.processInfo.environment,
        clock: any OTLPClock = OTLPSystemClock(), attributes: [String: String] = [:], sessions: OTLPSessionManager? = nil
    ) {
        self.init(
            provider: provider, tracer: telemetry.tracer(scope: Self.scope).journaling(interruptedAttribute: Self.interruptedAttribute),
            notificationCenter: notificationCenter,
            environment: environment, clock: clock, attributes: attributes, sessions: sessions)
    }
}
