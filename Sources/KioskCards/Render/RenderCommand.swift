import CardModel
import Glibc

/// `KioskCards render`: draws one frame headlessly into a PNG (docs, golden tests, support).
///
///     KioskCards render [--deck FILE] --size WxH --out FILE.png [--layout stack|list]
///                       [--gesture "drag DX DY" | --script FILE] [--at MS]
///                       [--scale S] [--rotation 0|90|180|270] [--naive]
///
/// `--size` is the panel's pixel size; with `--rotation 90`/`270` the scene is laid out
/// upright in the swapped (portrait) size and the PNG shows the panel as mounted.
/// Gestures: "drag DX DY" (stack: the top card; list: scroll by -DY, or swipe the first row
/// when |DX| > |DY|), "swipe ROW DX", "open ROW" (list detail page), "remove N" (stack).
struct RenderOptions: Equatable {
    var deckPath: String?
    var width = 800
    var height = 480
    var outPath = ""
    var layout = "stack"
    var gesture: String?
    var scriptPath: String?
    var atMs: Double = 0
    var scale: Double?
    var rotation = Rotation.deg0
    var naive = false

    static func parse(_ args: [String]) throws(RenderError) -> RenderOptions {
        var o = RenderOptions()
        var sawOut = false
        var i = 0
        func value() throws(RenderError) -> String {
            i += 1
            guard i < args.count else { throw .usage("render: '\(args[i - 1])' needs a value") }
            return args[i]
        }
        while i < args.count {
            let arg = args[i]
            switch arg {
            case "--deck": o.deckPath = try value()
            case "--size":
                let v = try value()
                let parts = v.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts[0] > 0, parts[1] > 0, parts[0] <= 8192, parts[1] <= 8192 else {
                    throw .usage("render: --size '\(v)' is not WIDTHxHEIGHT in pixels, e.g. --size 800x480")
                }
                (o.width, o.height) = (parts[0], parts[1])
            case "--out":
                o.outPath = try value()
                sawOut = true
            case "--layout":
                o.layout = try value()
                guard ["stack", "list"].contains(o.layout) else {
                    throw .usage("render: --layout '\(o.layout)' is unknown; use stack or list")
                }
            case "--gesture": o.gesture = try value()
            case "--script": o.scriptPath = try value()
            case "--at":
                let v = try value()
                guard let ms = Double(v), ms >= 0 else { throw .usage("render: --at '\(v)' is not milliseconds ≥ 0") }
                o.atMs = ms
            case "--scale":
                let v = try value()
                guard let s = Double(v), s > 0.1, s < 10 else {
                    throw .usage("render: --scale '\(v)' is not pixels per point between 0.1 and 10")
                }
                o.scale = s
            case "--rotation":
                let v = try value()
                guard let d = Int(v), d % 90 == 0, let r = Rotation(degrees: d) else {
                    throw .usage("render: --rotation '\(v)' must be 0, 90, 180 or 270")
                }
                o.rotation = r
            case "--naive": o.naive = true
            default: throw .usage("render: unknown option '\(arg)'. Run 'KioskCards --help'.")
            }
            i += 1
        }
        guard sawOut, !o.outPath.isEmpty else { throw .usage("render: --out FILE.png is required") }
        guard o.gesture == nil || o.scriptPath == nil else {
            throw .usage("render: give either --gesture or --script, not both")
        }
        return o
    }
}

/// Where `render` gets its cards and scenes.
enum RenderInputs {
    /// The deck's cards.
    ///
    /// LEAD HOOK (deck loader): when the product's deck-file parser lands, load `path` here
    /// and return its cards (reporting its errors as `.usage` with file and field).
    static func cards(deckPath: String?, layout: String) throws(RenderError) -> [Card] {
        if let deckPath {
            throw .usage(
                "render: reading deck files ('\(deckPath)') is not wired in yet; leave out --deck to use the sample cards"
            )
        }
        return layout == "list" ? SampleScenes.themedCards : SampleScenes.germanCards
    }

    /// The scene for `layout` after `gesture` on `cards`, laid out in `size` points.
    ///
    /// LEAD HOOK (CardModel decks): replace the `SampleScenes` calls with StackDeck/ListDeck
    /// fed by the gesture's touches, advanced to the wanted instant.
    static func scene(cards: [Card], layout: String, gesture: String?, size: Size) throws(RenderError) -> Scene {
        let words = (gesture ?? "").split(separator: " ").map(String.init)
        func number(_ i: Int) throws(RenderError) -> Double {
            guard i < words.count, let v = Double(words[i]) else {
                throw .usage("render: gesture '\(gesture ?? "")' needs a number at position \(i + 1)")
            }
            return v
        }
        switch (layout, words.first) {
        case (_, nil):
            return layout == "list" ? SampleScenes.list(cards, size: size) : SampleScenes.stack(cards, size: size)
        case ("stack", "drag"):
            let drag = Point(x: try number(1), y: try number(2))
            return SampleScenes.stack(cards, size: size, drag: drag, dragging: drag != .zero)
        case ("stack", "remove"):
            return SampleScenes.stack(Array(cards.dropFirst(Int(try number(1)))), size: size)
        case ("list", "drag"):
            let dx = try number(1)
            let dy = try number(2)
            if abs(dx) > abs(dy) { return SampleScenes.list(cards, size: size, swipe: (0, dx)) }
            return SampleScenes.list(cards, size: size, scroll: max(0, -dy))
        case ("list", "swipe"):
            return SampleScenes.list(cards, size: size, swipe: (Int(try number(1)), try number(2)))
        case ("list", "open"):
            let row = Int(try number(1))
            guard cards.indices.contains(row) else {
                throw .usage("render: no row \(row); rows are 0…\(cards.count - 1)")
            }
            return SampleScenes.detail(cards[row], size: size)
        default:
            throw .usage("render: gesture '\(gesture ?? "")' is unknown for the \(layout) layout")
        }
    }

    /// The gesture a script gives at `ms`: lines "MS GESTURE"; drags between two drag lines
    /// are interpolated, other gestures hold from their time on. Blank lines and '#' are skipped.
    ///
    /// TEMPORARY: a stand-in until the model's gestures (springs, fling) can replay touches.
    static func gesture(script text: String, path: String, at ms: Double) throws(RenderError) -> String? {
        var keys: [(ms: Double, gesture: String)] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingPrefix(while: { $0 == " " })
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2, let t = Double(parts[0]) else {
                throw .usage("render: \(path):\(n + 1): expected 'MS GESTURE', e.g. '120 drag 40 0'")
            }
            keys.append((t, parts[1]))
        }
        guard let lastIndex = keys.lastIndex(where: { $0.ms <= ms }) else { return nil }
        let a = keys[lastIndex]
        guard lastIndex + 1 < keys.count else { return a.gesture }
        let b = keys[lastIndex + 1]
        let wa = a.gesture.split(separator: " ")
        let wb = b.gesture.split(separator: " ")
        guard wa.first == "drag", wb.first == "drag", wa.count == 3, wb.count == 3, b.ms > a.ms,
            let ax = Double(wa[1]), let ay = Double(wa[2]), let bx = Double(wb[1]), let by = Double(wb[2])
        else { return a.gesture }
        let t = (ms - a.ms) / (b.ms - a.ms)
        return "drag \(ax + (bx - ax) * t) \(ay + (by - ay) * t)"
    }
}

/// Reads a whole text file; errors name the file.
func readTextFile(_ path: String) throws(RenderError) -> String {
    guard let f = fopen(path, "rb") else {
        throw .io("cannot open '\(path)': \(String(cString: strerror(errno)))")
    }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n <= 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The panel picture of a logical (upright) frame turned by `rotation` (headless output; the
/// display turns frames while copying them to scanout).
func panelImage(_ logical: PixelBuffer, rotation: Rotation) -> PixelBuffer {
    guard rotation != .deg0 else { return logical }
    let physical = rotation.logicalSize(physical: Size(width: Double(logical.width), height: Double(logical.height)))
    let out = PixelBuffer(width: Int(physical.width), height: Int(physical.height))
    let size = Size(width: physical.width, height: physical.height)
    for y in 0..<out.height {
        for x in 0..<out.width {
            let p = rotation.toLogical(Point(x: Double(x) + 0.5, y: Double(y) + 0.5), physical: size)
            out.setPixel(x: x, y: y, logical.pixel(x: Int(p.x), y: Int(p.y)))
        }
    }
    return out
}

/// Runs `render` with the arguments after the subcommand; returns the exit status.
func runRenderCommand(_ args: [String]) -> Int32 {
    do {
        let o = try RenderOptions.parse(args)
        let logical = o.rotation.logicalSize(physical: Size(width: Double(o.width), height: Double(o.height)))
        let pw = Int(logical.width)
        let ph = Int(logical.height)
        let scale =
            o.scale
            ?? RenderScale.pixelsPerPoint(pixelWidth: o.width, pixelHeight: o.height, widthMM: nil, heightMM: nil)
        var gesture = o.gesture
        if let path = o.scriptPath {
            gesture = try RenderInputs.gesture(script: try readTextFile(path), path: path, at: o.atMs)
        }
        let cards = try RenderInputs.cards(deckPath: o.deckPath, layout: o.layout)
        let scene = try RenderInputs.scene(
            cards: cards, layout: o.layout, gesture: gesture,
            size: Size(width: Double(pw) / scale, height: Double(ph) / scale))
        let images = ImageCache()
        let buffer = PixelBuffer(width: pw, height: ph)
        // Headless: wait for photos instead of drawing placeholders.
        let renderer = SceneRenderer(pixelWidth: pw, pixelHeight: ph, scale: scale, images: images)
        renderer.render(scene, into: buffer)
        images.waitUntilIdle()
        if o.naive {
            NaiveRenderer(scale: scale, images: images).render(scene, into: buffer)
        } else {
            renderer.invalidate()
            renderer.render(scene, into: buffer)
        }
        try panelImage(buffer, rotation: o.rotation).writePNG(to: o.outPath)
        return 0
    } catch .usage(let message) {
        Log.error(message)
        return 2
    } catch {
        Log.error("render: \(error)")
        return 1
    }
}
