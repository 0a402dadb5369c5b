/// Darwin's Mach exception and signal numbers (they differ from Linux's: never use the host's headers),
/// with the names and descriptions crash reports use.
enum DarwinExceptionNames {
    static let machExceptions: [Int64: (name: String, description: String)] = [
        1: ("EXC_BAD_ACCESS", "Could not access memory"),
        2: ("EXC_BAD_INSTRUCTION", "Illegal or undefined instruction or operand"),
        3: ("EXC_ARITHMETIC", "Arithmetic exception"),
        4: ("EXC_EMULATION", "Emulation instruction"),
        5: ("EXC_SOFTWARE", "Software generated exception"),
        6: ("EXC_BREAKPOINT", "Trace, breakpoint, etc."),
        7: ("EXC_SYSCALL", "System calls"),
        8: ("EXC_MACH_SYSCALL", "Mach system calls"),
        9: ("EXC_RPC_ALERT", "RPC alert"),
        10: ("EXC_CRASH", "Abnormal process exit"),
        11: ("EXC_RESOURCE", "Hit resource consumption limit"),
        12: ("EXC_GUARD", "Violated guarded resource protections"),
        13: ("EXC_CORPSE_NOTIFY", "Abnormal process exited to corpse state"),
    ]

    static let signals: [Int64: (name: String, description: String)] = [
        1: ("SIGHUP", "hangup"), 2: ("SIGINT", "interrupt"), 3: ("SIGQUIT", "quit"), 4: ("SIGILL", "illegal instruction"),
        5: ("SIGTRAP", "trace trap"), 6: ("SIGABRT", "abort"), 7: ("SIGEMT", "EMT instruction"), 8: ("SIGFPE", "floating point exception"),
        9: ("SIGKILL", "kill"), 10: ("SIGBUS", "bus error"), 11: ("SIGSEGV", "segmentation violation"), 12: ("SIGSYS", "bad system call"),
        13: ("SIGPIPE", "write on a pipe with no one to read it"), 14: ("SIGALRM", "alarm clock"),
        15: ("SIGTERM", "software termination signal"),
        16: ("SIGURG", "urgent condition on IO channel"), 17: ("SIGSTOP", "sendable stop signal not from tty"),
        18: ("SIGTSTP", "stop signal from tty"),
        19: ("SIGCONT", "continue a stopped process"), 20: ("SIGCHLD", "to parent on child stop or exit"),
        21: ("SIGTTIN", "to readers pgrp upon background tty read"),
        22: ("SIGTTOU", "like TTIN for output"), 23: ("SIGIO", "input/output possible signal"), 24: ("SIGXCPU", "exceeded CPU time limit"),
        25: ("SIGXFSZ", "exceeded file size limit"), 26: ("SIGVTALRM", "virtual time alarm"), 27: ("SIGPROF", "profiling time alarm"),
        28: ("SIGWINCH", "window size changes"), 29: ("SIGINFO", "information request"), 30: ("SIGUSR1", "user defined signal 1"),
        31: ("SIGUSR2", "user defined signal 2"),
    ]

    static func mach(_ number: Int64) -> (name: String, description: String) {
        machExceptions[number] ?? ("Unknown exception type: \(number)", "Unknown exception type: \(number)")
    }

    static func signal(_ number: Int64) -> (name: String, description: String) {
        signals[number] ?? ("Unknown signal: \(number)", "Unknown signal: \(number)")
    }
}
