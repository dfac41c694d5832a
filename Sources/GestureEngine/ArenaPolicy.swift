/// The declarative arbitration policy, built once from the configuration: for every pair of
/// gestures that can meet in one arena (one's region contains the other's, or they share one),
/// whether one outranks the other (must fail before the other may fire), both may run at once,
/// or one may take over the other.
public struct ArenaPolicy: Sendable {
    public let count: Int
    /// A pair's relations, a bit each (`outranksBit`, `togetherBit`, `takeoverBit`): one array,
    /// so a copy of the policy retains as few as it did before the takeovers.
    private let links: [UInt8]
    private static let outranksBit: UInt8 = 1, togetherBit: UInt8 = 2, takeoverBit: UInt8 = 4
    /// What a gesture that may take another over needs.
    struct Taker: Sendable {
        /// Its least finger count.
        var minFingers = 0
        /// How long (ns) after the gesture it takes over was accepted it still may: twice its
        /// `finger_settle`.
        var window: Int64 = 0
    }
    let takers: [Taker]

    /// Why `a` outranks `b`, for logs and docs.
    public enum Rank: String, Sendable {
        case requiresFailure = "requires_failure_of"
        case innerRegion = "inner region"
        case highPriority = "priority high"
        case moreFingers = "more fingers"
        case systemGesture = "system gesture over a client's"
    }
    private let reasons: [Rank?]

    init(count: Int, outranking: [Bool], together: [Bool], reasons: [Rank?], takeover: [Bool], takers: [Taker]) {
        self.count = count
        links = outranking.indices.map { i in
            (outranking[i] ? Self.outranksBit : 0) | (together[i] ? Self.togetherBit : 0) | (takeover[i] ? Self.takeoverBit : 0)
        }
        self.reasons = reasons
        self.takers = takers
    }

    /// `a` must fail before `b` may fire.
    public func outranks(_ a: Int, _ b: Int) -> Bool { links[a * count + b] & Self.outranksBit != 0 }
    /// `a` and `b` may both be recognized; neither's success rejects the other.
    public func simultaneous(_ a: Int, _ b: Int) -> Bool { links[a * count + b] & Self.togetherBit != 0 }
    public func rank(_ a: Int, over b: Int) -> Rank? { reasons[a * count + b] }
    /// `a` needs more fingers than `b` needs, in one region, with no rule between them (a pinch
    /// and the standard pan of 1-5 fingers): `b`, accepted while `a` still waited for its fingers
    /// (the first finger moved a pan's slop before the second landed), does not reject `a`, and
    /// `a` ready soon after (`Taker.window`) cancels `b` and fires (`Arena.fireNext`).
    public func takesOver(_ a: Int, _ b: Int) -> Bool { links[a * count + b] & Self.takeoverBit != 0 }

    /// The gestures that may take another over: those a motion makes ready while the fingers are
    /// down (a tap or a swipe, ready only as the fingers lift, would find the other ended).
    static let takerKinds: Set<GestureKind> = [.pan, .pinch]
    /// The gestures that may be taken over: those that run while the fingers are down.
    static let takenKinds: Set<GestureKind> = [.pan, .pinch, .longPress, .edgeSwipe]

    /// The pairs of one region where one needs more fingers than the other and nothing else
    /// orders them (`takesOver`), the one taking over a pan or a pinch.
    static func takeovers(_ regions: [CompiledRegion], _ gestures: [CompiledGesture], outranking: [Bool], together: [Bool]) -> [Bool] {
        let n = gestures.count
        var takeover = [Bool](repeating: false, count: n * n)
        for region in regions {
            for a in region.gestures {
                guard takerKinds.contains(gestures[a].spec.kind) else { continue }
                for b in region.gestures where a != b && gestures[a].spec.minFingers > gestures[b].spec.minFingers && takenKinds.contains(gestures[b].spec.kind) {
                    let (ab, ba) = (a * n + b, b * n + a)
                    if !outranking[ab] && !outranking[ba] && !together[ab] { takeover[ab] = true }
                }
            }
        }
        return takeover
    }
}

