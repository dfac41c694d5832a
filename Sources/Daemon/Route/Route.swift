import GestureEngine
import Pipeline
import TouchInput

/// What enters a device's route: a read's batch, the clock reaching its deadlines, or its going
/// away (monotonic ns).
enum RouteInput {
    case read(InputBatch)
    case deadlines(monotonic: Int64)
    case removal(monotonic: Int64)
    /// The filters' own frames due by a time, in order with the reads (a threaded panel's: the
    /// input thread made them there).
    case filterTick(Timestamp)

    /// Its time, for a deadline or a removal (a read's is the turn's, read only if asked).
    var monotonic: Int64? {
        switch self {
        case .read, .filterTick: return nil
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
    /// A live read stopped at a SYN_DROPPED: its reader resynchronizes.
    var lostEvents = false

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
    /// A touch landing while the kiosk sleeps (or on a dark display) wakes it; that touch is swallowed.
    case wake
    /// The frame on the panel's virtual touchscreen before the engine runs, when the engine can
    /// take and hold nothing of it (pass-through with no system gesture, limit or pointer region).
    case mirrorAhead = "mirror ahead"
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

/// A stage of a frame: it reads the input stage's last frame of `device` (and what the stages
/// before it made of it, in `output`). The device, the table's output and wake watch and the
/// input's report are handed down as one `inout` each: the frame loop reaches the table's array
/// of devices once a read, not once a stage.
protocol FrameStage {
    static var stage: RouteStage { get }
    static var order: [RouteStage] { get }
    static func frame<E: RouteEnvironment>(
        _ device: inout RouteDevice, _ output: inout PipelineOutput, _ wake: inout WakeWatch, _ report: inout RouteReport, _ env: E)
}

/// A stage of an input's end: once a read (after its frames), a deadline or a removal.
protocol EndStage {
    static var stage: RouteStage { get }
    static var order: [RouteStage] { get }
    static func end<C: RouteEnvironment>(_ state: inout FrameState, _ k: Int, _ input: RouteInput, _ report: inout RouteReport, _ env: C)
}

/// An ordered list of stages, as a type: `First` then `Rest` (itself a stage or a list). The
/// compiler resolves the whole list when it builds the daemon: each stage's call is direct and
/// inlined, nothing is looked up or iterated per frame.
enum Then<First: FrameStage, Rest: FrameStage>: FrameStage {
    static var stage: RouteStage { First.stage }
    static var order: [RouteStage] { First.order + Rest.order }

    @inline(__always)
    static func frame<E: RouteEnvironment>(
        _ device: inout RouteDevice, _ output: inout PipelineOutput, _ wake: inout WakeWatch, _ report: inout RouteReport, _ env: E
    ) {
        First.frame(&device, &output, &wake, &report, env)
        Rest.frame(&device, &output, &wake, &report, env)
    }
}

enum ThenEnd<First: EndStage, Rest: EndStage>: EndStage {
    static var stage: RouteStage { First.stage }
    static var order: [RouteStage] { First.order + Rest.order }

    @inline(__always)
    static func end<E: RouteEnvironment>(_ state: inout FrameState, _ k: Int, _ input: RouteInput, _ report: inout RouteReport, _ env: E) {
        First.end(&state, k, input, &report, env)
        Rest.end(&state, k, input, &report, env)
    }
}

extension FrameStage {
    /// The stages this one stands for, in order (a list's, or the stage itself).
    static var order: [RouteStage] { [stage] }
}

extension EndStage {
    static var order: [RouteStage] { [stage] }
}

/// The route: each input through one device, each stage once, in this order. A read is decoded
/// (the input stage) and each frame goes through the frame stages; then, once an input, the end
/// stages. A new consumer is one more type in one of these lists. (Lists of nested generic
/// types, not parameter packs: a loop over a pack was left unspecialized, each stage called
/// through its witness table with the pack's metadata made at run time, +5,600 instructions a
/// frame.)
enum Route {
    typealias PerFrame = Then<WakeStage, Then<MirrorAhead, Then<GestureStage, Then<MirrorStage, TouchLines>>>>
    typealias PerInput = ThenEnd<MirrorWrite, ThenEnd<PointerWrite, ThenEnd<Metrics, ThenEnd<ClientLines, DaemonStage>>>>

    /// Every stage, in order: the input stage, the frame stages, then the end stages (the
    /// mirror's frame and its write are one stage).
    static var order: [RouteStage] {
        var list = [RouteStage.input]
        for s in PerFrame.order + PerInput.order where !list.contains(s) { list.append(s) }
        return list
    }
}
