import TouchInput

/// What enters a device's route: a read's batch, the clock reaching its deadlines, or its going
/// away (monotonic ns).
enum RouteInput {
    case read(InputBatch)
    case deadlines(monotonic: Int64)
    case removal(monotonic: Int64)

    /// Its time, for a deadline or a removal (a read's is the turn's, read only if asked).
    var monotonic: Int64? {
        switch self {
        case .read: return nil
        case .deadlines(let now), .removal(let now): return now
        }
    }
}

/// What the route's stages did, gathered as they run; the daemon's stage acts on it.
struct RouteReport {
    /// A touch in this read woke the kiosk, on a dark display or after `[idle] after`.
    var woke = false
    var wokeInTheDark = false
    /// A write to the mirror or the virtual pointer failed (its notice is logged, throttled).
    var mirrorFailed = false
    var pointerFailed = false
    /// The fan-out was handed actions that fired, or transitions traced (`--verbose`).
    var fired = false
    var traced = false
    /// The input's frames in monotonic time (none: a deadline's or a removal's output): where
    /// the latency of the lines they led to starts, and the panel's last frame.
    var firstFrame: Int64?
    var lastFrame: Int64?

    var needsTheDaemon: Bool { fired || traced || woke || mirrorFailed || pointerFailed }
}

/// What the route reads and calls outside the frame state: the clock (the loop's turn), and
/// the daemon's stage (its log, its actions' runner, its idle watch). The daemon's devices, or
/// a test's, which drives the clock itself.
protocol RouteEnvironment: AnyObject {
    /// CLOCK_MONOTONIC (ns) at this turn: read once a turn, when first asked.
    var turnStarted: Int64 { get }
    /// The daemon's stage, for an input whose report asks for it (`RouteReport.needsTheDaemon`).
    func daemonStage(_ k: Int, _ report: RouteReport, _ state: inout FrameState)
}

/// The route's stages by name, in the order ARCHITECTURE.md draws them (a test compares the
/// two lists, and each with the stage types below).
enum RouteStage: String, CaseIterable, Sendable {
    /// Each read decoded once into the frame every consumer reads (`FrameDecoder`).
    case input
    /// A touch landing while the kiosk sleeps (or on a dark display) wakes it; its sequence is swallowed.
    case wake
    /// The engine: gestures, their lines, the actions they fire, pointer ops, and what it takes
    /// or holds of the panel's contacts.
    case gestures
    /// The panel's contacts on its virtual touchscreen, less what the engine took or holds.
    case mirror
    /// The protocol's lines (a frame's touch line as it is made, the gesture lines at the
    /// input's end), queued to each subscriber that takes them.
    case clientLines = "client lines"
    /// The virtual pointer's ops, written.
    case pointer
    /// Events, frames and the panel's last frame counted (`stats`).
    case metrics
    /// The daemon's: transitions traced, the wake told, failed writes logged, actions fired.
    case actions
}

/// A stage of a frame: it reads the input stage's last frame of device `k` (and what the stages
/// before it made of it).
protocol FrameStage {
    static var stage: RouteStage { get }
    static func frame<C: RouteEnvironment>(_ table: inout DeviceTable, _ k: Int, _ report: inout RouteReport, _ env: C)
}

/// A stage of an input's end: once a read (after its frames), a deadline or a removal.
protocol EndStage {
    static var stage: RouteStage { get }
    static func end<C: RouteEnvironment>(_ state: inout FrameState, _ k: Int, _ input: RouteInput, _ report: inout RouteReport, _ env: C)
}

/// An ordered list of stages, as a type: `run` calls each in the list's order, resolved when the
/// daemon is built (no list read, nothing called through a table, per frame).
struct FrameStages<each S: FrameStage> {
    @inline(__always)
    static func run<C: RouteEnvironment>(_ table: inout DeviceTable, _ k: Int, _ report: inout RouteReport, _ env: C) {
        for s in repeat (each S).self { s.frame(&table, k, &report, env) }
    }

    static var order: [RouteStage] {
        var list: [RouteStage] = []
        for s in repeat (each S).self { list.append(s.stage) }
        return list
    }
}

struct EndStages<each S: EndStage> {
    @inline(__always)
    static func run<C: RouteEnvironment>(_ state: inout FrameState, _ k: Int, _ input: RouteInput, _ report: inout RouteReport, _ env: C) {
        for s in repeat (each S).self { s.end(&state, k, input, &report, env) }
    }

    static var order: [RouteStage] {
        var list: [RouteStage] = []
        for s in repeat (each S).self { list.append(s.stage) }
        return list
    }
}

/// The route: each input through one device, each stage once, in this order. A read is decoded
/// (the input stage) and each frame goes through the frame stages; then, once an input, the end
/// stages. A new consumer is one more type in one of these lists.
enum Route {
    typealias PerFrame = FrameStages<WakeStage, GestureStage, MirrorStage, TouchLines>
    typealias PerInput = EndStages<MirrorWrite, PointerWrite, Metrics, ClientLines, DaemonStage>

    /// Every stage, in order: the input stage, the frame stages, then the end stages (the
    /// mirror's frame and its write are one stage).
    static var order: [RouteStage] {
        var list = [RouteStage.input]
        for s in PerFrame.order + PerInput.order where !list.contains(s) { list.append(s) }
        return list
    }
}
