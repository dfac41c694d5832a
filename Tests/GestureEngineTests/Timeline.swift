@testable import GestureEngine

/// A scripted hand on the glass. The test owns time: `wait` moves the clock and fires the
/// engine's deadlines; nothing sleeps. By default one pixel is one millimetre, so distances in a
/// test read directly against thresholds in mm.
struct Timeline {
    var engine: Engine
    var time = Timestamp(seconds: 1)
    var start = Timestamp(seconds: 1)
    var contacts: [Contact] = []
    var events: [GestureEvent] = []
    var scale = MillimetersPerPixel.identity

    init(_ config: EngineConfiguration = .standard(screen: PixelRect(x: 0, y: 0, width: 1000, height: 1000))) {
        engine = Engine(configuration: config)
    }

    init(regions: [RegionSpec], screen: PixelRect = PixelRect(x: 0, y: 0, width: 1000, height: 1000)) {
        self.init(EngineConfiguration(screen: screen, regions: regions))
    }

    /// Milliseconds since the timeline began.
    var elapsed: Double { (time - start).milliseconds }

    mutating func send(palm: Bool = false) {
        var frame = TouchFrame(time: time, contacts: contacts, scale: scale)
        if palm { frame.contacts.append(Contact(id: 999, position: .zero, isPalm: true)) }
        engine.handle(frame, into: &events)
    }

    mutating func down(_ id: UInt32, at p: (Double, Double)) {
        contacts.append(Contact(id: id, position: PixelPoint(x: p.0, y: p.1)))
        send()
    }

    /// Several fingers landing in one frame.
    mutating func down(_ fingers: [(UInt32, (Double, Double))]) {
        for (id, p) in fingers { contacts.append(Contact(id: id, position: PixelPoint(x: p.0, y: p.1))) }
        send()
    }

    mutating func move(_ id: UInt32, to p: (Double, Double)) {
        if let i = contacts.firstIndex(where: { $0.id == id }) { contacts[i].position = PixelPoint(x: p.0, y: p.1) }
        send()
    }

    mutating func moveAll(by d: (Double, Double)) {
        for i in contacts.indices { contacts[i].position += PixelPoint(x: d.0, y: d.1) }
        send()
    }

    /// Moves finger `id` by `d` in `steps` equal frames spread over `duration`.
    mutating func drag(_ id: UInt32, by d: (Double, Double), over duration: Duration, steps: Int = 10) {
        dragAll(ids: [id], by: d, over: duration, steps: steps)
    }

    /// Moves the given fingers (all when empty) together.
    mutating func dragAll(ids: [UInt32] = [], by d: (Double, Double), over duration: Duration, steps: Int = 10) {
        let dt = duration.nanosecondsClamped / Int64(steps)
        for _ in 0..<steps {
            time = Timestamp(nanoseconds: time.nanoseconds + dt)
            for i in contacts.indices where ids.isEmpty || ids.contains(contacts[i].id) {
                contacts[i].position += PixelPoint(x: d.0 / Double(steps), y: d.1 / Double(steps))
            }
            send()
        }
    }

    mutating func up(_ id: UInt32) {
        contacts.removeAll { $0.id == id }
        send()
    }

    mutating func upAll() {
        contacts.removeAll()
        send()
    }

    mutating func wait(_ d: Duration) {
        time = time + d
        engine.advance(to: time, into: &events)
    }

    mutating func palm() { send(palm: true) }

    /// Lets every pending deadline fire.
    mutating func finish() {
        engine.advance(to: .distantFuture, into: &events)
    }

    func name(_ e: GestureEvent) -> String { engine.configuration.gestures[e.gesture].spec.name }

    func regionName(_ e: GestureEvent) -> String {
        engine.configuration.regions[engine.configuration.gestures[e.gesture].region].name
    }

    /// Events as "name phase", the form most tests expect.
    var log: [String] { events.map { "\(name($0)) \($0.phase.rawValue)" } }

    /// Events as "region/name phase".
    var qualifiedLog: [String] { events.map { "\(regionName($0))/\(name($0)) \($0.phase.rawValue)" } }

    /// The first event named `name` with `phase`.
    func event(_ name: String, _ phase: GesturePhase) -> GestureEvent? {
        events.first { self.name($0) == name && $0.phase == phase }
    }

    /// Milliseconds since the start at which an event happened.
    func at(_ e: GestureEvent?) -> Double? { e.map { ($0.time - start).milliseconds } }
}

/// A region's rectangle in the tests' pixels (one pixel a millimetre by default).
func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> PixelRect {
    PixelRect(x: x, y: y, width: w, height: h)
}
