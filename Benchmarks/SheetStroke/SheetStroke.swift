import GestureEngine

/// The scroll chaining workload of the engine benchmark and of scripts/count-engine: one finger
/// on a bottom sheet's list (examples/bottom-sheet.toml's regions) moving in a 300 px triangle
/// wave at 1 kHz, never lifting, so each stroke hands over between the list and the sheet at
/// their bounds.
public struct SheetStroke {
    public var engine: Engine
    var frame = TouchFrame(time: Timestamp(seconds: 1), contacts: [], scale: MillimetersPerPixel(x: 0.18, y: 0.18))
    var t: Int64 = 1_000_000_000
    var step = 0

    /// The finger lands on the list (its events go to `events`).
    public init(_ configuration: EngineConfiguration, into events: inout [GestureEvent]) {
        engine = Engine(configuration: configuration)
        frame.contacts = FrameList(capacity: 4)
        frame.contacts.append(Contact(id: 1, position: PixelPoint(x: 960, y: 700)))
        engine.handle(frame, into: &events)
    }

    /// The next frame, 1 ms on.
    public mutating func next(into events: inout [GestureEvent]) {
        t += 1_000_000
        step += 1
        frame.time = Timestamp(nanoseconds: t)
        let phase = step % 1200
        frame.contacts[0].position = PixelPoint(x: 960, y: 700 + Double(phase < 600 ? phase : 1200 - phase) * 0.5 - 150)
        engine.handle(frame, into: &events)
    }

    /// examples/bottom-sheet.toml's regions, the sheet half open (so it takes every move), the
    /// list chained to it or not.
    public static func configuration(chained: Bool) -> EngineConfiguration {
        let sheet = RegionSpec(
            name: "sheet", rect: PixelRect(x: 0, y: 280, width: 1920, height: 800),
            gestures: [GestureSpec(.pan, name: "drag", axis: .vertical)],
            drag: DragConstraints(
                y: AxisConstraint(min: 0, max: 600, mode: .rubberBand, snapPoints: [0, 300, 600]), projection: .milliseconds(150),
                initial: PixelPoint(x: 0, y: 300)))
        let list = RegionSpec(
            name: "content", rect: PixelRect(x: 0, y: 360, width: 1920, height: 720),
            gestures: [GestureSpec(.pan, name: "scroll", axis: .vertical), GestureSpec(.tap)],
            drag: DragConstraints(
                y: AxisConstraint(min: -1800, max: 0, mode: .rubberBand), projection: .milliseconds(300),
                chain: chained ? DragChain(region: "sheet", outerFirst: .up) : nil))
        return EngineConfiguration(screen: PixelRect(x: 0, y: 0, width: 1920, height: 1080), regions: [sheet, list])
    }
}
