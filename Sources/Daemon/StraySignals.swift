import Glibc
import Logging

/// Signals the daemon has no use for (SIGUSR1, SIGUSR2, SIGALRM, the real-time ones, ...): their
/// default action would end it, so they are blocked and read from the signalfd like the others
/// (`cl_daemon_signals`), then ignored. Logged at the 1st, 10th, 100th, ... of them, so a flood
/// cannot flood the journal either. Action children get every signal back at its default.
struct StraySignals {
    private(set) var count = 0

    mutating func note(_ signal: Int32, log: Logger) {
        count += 1
        var power = 1
        while power < count { power *= 10 }
        guard power == count else { return }
        log.notice("signal \(signal) (\(Self.name(signal))) ignored; \(count) stray signal(s) so far")
    }

    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGUSR1: return "SIGUSR1"
        case SIGUSR2: return "SIGUSR2"
        case SIGALRM: return "SIGALRM"
        case SIGVTALRM: return "SIGVTALRM"
        case SIGPROF: return "SIGPROF"
        case SIGIO: return "SIGIO"
        case SIGPWR: return "SIGPWR"
        case SIGSTKFLT: return "SIGSTKFLT"
        case SIGURG: return "SIGURG"
        default: return "real-time"
        }
    }
}
