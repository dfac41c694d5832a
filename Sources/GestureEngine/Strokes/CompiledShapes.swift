extension CompiledConfiguration {
    /// A stroke event's shape name (nil for any other event).
    public func shapeName(of e: GestureEvent) -> String? {
        e.kind == .stroke && e.shape >= 0 && e.shape < shapeNames.count ? shapeNames[e.shape] : nil
    }

    /// The templates strokes are matched against, and the shapes' names each once in the order of
    /// their first template. A built-in shape is matched when the configuration has no template
    /// of its own or a stroke names it: otherwise the circle, taken at any angle and either way
    /// round, would draw to itself drawings of shapes the kiosk taught (a ring, a triangle).
    static func shapes(_ config: EngineConfiguration) -> (templates: [StrokeTemplate], names: [String]) {
        let named = Set(config.regions.flatMap { $0.gestures.flatMap(\.shapes) })
        let builtIn = StrokeTemplate.builtIn.filter { b in
            !config.strokes.contains { $0.name == b.name } && (config.strokes.isEmpty || named.contains(b.name))
        }
        let templates = config.strokes + builtIn
        var names: [String] = []
        for t in templates where !names.contains(t.name) { names.append(t.name) }
        return (templates, names)
    }
}
