extension OTLPSignal {
    /// The signal a file name announces by a whole token, if any: the last path component, lowercased, is cut
    /// into tokens at every character that is not a letter or digit, and `traces`, `trace`, `spans` or `span`
    /// means traces, `logs` or `log` logs, `metrics` or `metric` metrics (`app.traces.u32be.bin`,
    /// `catalog-logs.jsonl`). No token, or tokens of two signals, announce nothing; `catalog.bin` and
    /// `backlog.u32be.bin` hold no `log` token.
    package static func fromFileName(_ name: String) -> OTLPSignal? {
        let base = name.split(separator: "/").last.map { $0.lowercased() } ?? ""
        let tokens = Set(base.split { !($0.isLetter || $0.isNumber) }.map(String.init))
        let announced: [OTLPSignal] = [
            tokens.isDisjoint(with: ["traces", "trace", "spans", "span"]) ? nil : .traces,
            tokens.isDisjoint(with: ["logs", "log"]) ? nil : .logs,
            tokens.isDisjoint(with: ["metrics", "metric"]) ? nil : .metrics,
        ].compactMap { $0 }
        return announced.count == 1 ? announced[0] : nil
    }
}
