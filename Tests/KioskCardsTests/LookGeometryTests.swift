import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskRender
@testable import KioskSystem

/// The design's geometry measured in rendered frames: the real decks (`StackDeck`,
/// `ListDeck`) driven by the `render` command's gestures, drawn by `SceneRenderer` at a
/// panel's point→pixel scale, then the edges found in the pixels and compared with the
/// SwiftUI design's numbers written here, not read from the code under test: the card
/// 320×440 pt with radius 22; card i 8·i pt lower and scaled 1 − 0.04·i; a drag of (dx, dy)
/// moves the card by (dx, dy/12) and turns it by dx/20°; list rows inset 2 pt top and bottom
/// and 10 pt left and right, 72 pt high (4 pt between rows), radius 5.
///
/// Tolerances come from the pixel grid, in pixels:
/// - an unturned element's edge ±0.75: the compositor places its surface on whole pixels
///   (±0.5) and an edge's antialiased coverage locates it to ±0.25;
/// - a corner's radius ±0.5: measured from the element's own edges (the placement cancels),
///   each pixel row's inset by coverage;
/// - a turned card's centre and size ±0.25: it is sampled at its exact position (no whole-pixel
///   placement), so only the coverage error is left; its angle to what ±0.25 px at the ends of
///   the ±96 pt its edges are fitted on allow.
/// At 0.92 px/pt a one-point change of an inset, a depth offset or a radius moves an edge by
/// 0.92 px (1.8 px at 1080p), and the depth's scale step moves card 1's sides by 1.6 pt.
@Suite struct LookGeometryTests {
    /// The Raspberry Pi 7" panel (800×480 px, 154×86 mm: 0.92 px/pt) and a 1080p panel that
    /// reports no millimetres (1.8 px/pt), sized as `run` and `render` size them.
    static let panels: [PanelGeometry] = [
        PanelGeometry(pixelWidth: 800, pixelHeight: 480, millimetres: Size(width: 154, height: 86)),
        PanelGeometry(pixelWidth: 1920, pixelHeight: 1080, millimetres: nil),
    ]

    static let edgeTolerance = 0.75
    static let radiusTolerance = 0.5
    static let turnedTolerance = 0.25

    /// Saturated colours far from the grey backdrop and from each other, and text in the card's
    /// own colour, so only the outlines are seen.
    static let cards: [Card] = [0xC0392B, 0x1F6FB2, 0x1E8449, 0x8E44AD, 0xB9770E].enumerated().map { i, rgb in
        Card(id: "c\(i)", title: "", color: Color(rgb: UInt32(rgb)), accent: Color(rgb: UInt32(rgb)))
    }

    static func render(_ scene: Scene, _ panel: PanelGeometry) -> MeasuredFrame {
        let w = Int((panel.metrics.size.width * panel.scale).rounded())
        let h = Int((panel.metrics.size.height * panel.scale).rounded())
        return MeasuredFrame(
            buffer: RenderFixtures.render(scene, width: w, height: h, scale: panel.scale), scale: panel.scale)
    }

    /// The stack at rest, or held after the `render` gesture "drag dx dy" and one second more
    /// of holding still, so the card has caught up with the finger.
    static func stack(_ panel: PanelGeometry, cards: [Card] = cards, drag: Point? = nil) -> Scene {
        var deck = StackDeck(cards: cards, metrics: panel.metrics, options: StackOptions(showButtons: false))
        let start = DeckScenes.start
        let rest = deck.scene(at: start)
        guard let drag else { return rest }
        let origin = RenderInputs.origin(of: rest, size: panel.metrics.size)
        let frames = (try? RenderInputs.gestureFrames("drag \(drag.x) \(drag.y)", origin: origin, at: start)) ?? []
        for f in frames {
            _ = deck.scene(at: f.time)
            deck.handle(f)
        }
        return deck.scene(at: (frames.last?.time ?? start).advanced(bySeconds: 1))
    }

    // MARK: The card

    /// The top card at rest: 320×440 pt, centred, corners of radius 22 pt.
    @Test(arguments: panels) func topCardSizeAndRadius(_ panel: PanelGeometry) throws {
        let frame = Self.render(Self.stack(panel), panel)
        let screen = panel.metrics.size
        let box = try frame.box(around: Point(x: screen.width / 2, y: screen.height / 2))
        frame.expect(box.minX, (screen.width - 320) / 2, "left")
        frame.expect(box.maxX, (screen.width + 320) / 2, "right")
        frame.expect(box.minY, (screen.height - 440) / 2, "top")
        frame.expect(box.maxY, (screen.height + 440) / 2, "bottom")
        for corner in MeasuredFrame.Corner.allCases {
            let r = try frame.cornerRadius(of: box, corner)
            #expect(
                abs(r - 22) * frame.scale <= Self.radiusTolerance,
                "\(corner) radius \(r) pt, the design's 22 (\(frame.scale) px/pt)")
        }
    }

    /// Card i (alone in the frame, as the deck places it at rest) is 8·i pt lower and scaled
    /// 1 − 0.04·i about its centre.
    @Test(arguments: panels) func cardsBehindAreLowerAndSmaller(_ panel: PanelGeometry) throws {
        let scene = Self.stack(panel)
        let screen = panel.metrics.size
        for i in 0..<StackLayout.visibleDepth {
            let id = "card:" + Self.cards[i].id
            let alone = Scene(
                size: scene.size, background: scene.background, elements: scene.elements.filter { $0.id == id },
                isAnimating: false)
            try #require(alone.elements.count == 1, "card \(i) is drawn")
            let frame = Self.render(alone, panel)
            let box = try frame.box(around: Point(x: screen.width / 2, y: screen.height / 2))
            let s = 1 - 0.04 * Double(i)
            let cy = screen.height / 2 + 8 * Double(i)
            frame.expect(box.minX, screen.width / 2 - 160 * s, "card \(i) left")
            frame.expect(box.maxX, screen.width / 2 + 160 * s, "card \(i) right")
            frame.expect(box.minY, cy - 220 * s, "card \(i) top")
            frame.expect(box.maxY, cy + 220 * s, "card \(i) bottom")
        }
    }

    /// With the top card dragged aside, the one beneath shows its left edge where the design
    /// puts card 1: 0.96·160 pt left of the centre.
    @Test(arguments: panels) func cardBeneathShowsWhenTheTopIsDraggedAside(_ panel: PanelGeometry) throws {
        let frame = Self.render(Self.stack(panel, drag: Point(x: 260, y: 0)), panel)
        let screen = panel.metrics.size
        let left = try frame.edge(
            from: Point(x: screen.width / 2 - 120, y: screen.height / 2), direction: .left)
        frame.expect(left, screen.width / 2 - 160 * 0.96, "card 1's left edge")
    }

    /// A drag of (dx, dy) moves the card by (dx, dy/12) and turns it by dx/20 degrees: the
    /// measured edges' slope, the card's centre and its unchanged size.
    @Test(arguments: panels, [Point(x: 100, y: 60), Point(x: -140, y: -36)])
    func draggedCardMovesAndTurns(_ panel: PanelGeometry, drag: Point) throws {
        let frame = Self.render(Self.stack(panel, cards: [Self.cards[0]], drag: drag), panel)
        let screen = panel.metrics.size
        let centre = Point(x: screen.width / 2 + drag.x, y: screen.height / 2 + drag.y / 12)
        let card = try frame.turnedBox(around: centre, halfSize: Size(width: 160, height: 220))
        let degrees = card.angle * 180 / Double.pi
        // Over the ±96 pt the slope is fitted on, 0.25 px at either end is an angle of
        // atan(0.5 / (192·scale)).
        let angleTolerance = atan(0.5 / (192 * frame.scale)) * 180 / Double.pi
        #expect(abs(degrees - drag.x / 20) <= angleTolerance, "turned \(degrees)°, the design's \(drag.x / 20)°")
        let within = Self.turnedTolerance
        frame.expect(card.centre.x, centre.x, "centre x", within: within)
        frame.expect(card.centre.y, centre.y, "centre y", within: within)
        frame.expect(card.size.width, 320, "width", within: within)
        frame.expect(card.size.height, 440, "height", within: within)
    }

    // MARK: The list

    /// Rows inset 10 pt left and right and 2 pt top and bottom in a 76 pt slot under the 56 pt
    /// title bar: 72 pt high, 4 pt between rows, corners of radius 5. (Where the bar's 44 pt
    /// controls would be under 9 mm on the glass, they and the bar grow: 9 mm + 12 pt.)
    @Test(arguments: panels) func listRowsInsetsGapsAndRadius(_ panel: PanelGeometry) throws {
        var deck = ListDeck(cards: Self.cards, metrics: panel.metrics, randomSeed: 1)
        let frame = Self.render(deck.scene(at: DeckScenes.start), panel)
        let screen = panel.metrics.size
        let bar = max(56, (9 * panel.metrics.pointsPerMillimetre).rounded(.up) + 12)
        var previousBottom: Double?
        for row in 0..<3 {
            let top = bar + 76 * Double(row) + 2
            let box = try frame.box(around: Point(x: screen.width / 2, y: top + 36))
            frame.expect(box.minX, 10, "row \(row) left inset")
            frame.expect(box.maxX, screen.width - 10, "row \(row) right inset")
            frame.expect(box.minY, top, "row \(row) top")
            frame.expect(box.maxY, top + 72, "row \(row) bottom")
            if let previousBottom { frame.expect(box.minY - previousBottom, 4, "gap above row \(row)") }
            previousBottom = box.maxY
            for corner in MeasuredFrame.Corner.allCases {
                let r = try frame.cornerRadius(of: box, corner)
                #expect(
                    abs(r - 5) * frame.scale <= Self.radiusTolerance,
                    "row \(row) \(corner) radius \(r) pt, the design's 5 (\(frame.scale) px/pt)")
            }
        }
    }
}

/// A rendered frame and the edge finding on it. Positions are in points (pixels / scale).
struct MeasuredFrame {
    var buffer: PixelBuffer
    var scale: Double

    enum Direction { case left, right, up, down }
    enum Corner: CaseIterable { case topLeft, topRight, bottomLeft, bottomRight }

    struct NoEdge: Error, CustomStringConvertible {
        var description: String
    }

    func pixel(_ x: Int, _ y: Int) -> SIMD3<Double> {
        let x = min(max(x, 0), buffer.width - 1)
        let y = min(max(y, 0), buffer.height - 1)
        let p = buffer.pixels.load(fromByteOffset: y * buffer.stride + x * 4, as: UInt32.self)
        return SIMD3(Double((p >> 16) & 0xFF), Double((p >> 8) & 0xFF), Double(p & 0xFF))
    }

    /// `|measured − expected|` (points) within `within` pixels.
    func expect(
        _ measured: Double, _ expected: Double, _ what: String, within: Double = LookGeometryTests.edgeTolerance,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            abs(measured - expected) * scale <= within,
            "\(what): measured \(measured) pt, the design's \(expected) pt (±\(within) px at \(scale) px/pt)",
            sourceLocation: sourceLocation)
    }

    /// The edge met going from `start` (inside a shape) in `direction`, in points along the
    /// scan's axis.
    ///
    /// The first pixel whose colour jumps away from the pixels behind it is the coarse edge;
    /// then, between a pixel a few steps inside (`c`) and a few steps outside (`o`), each
    /// pixel's coverage is its projection on the part of `c` orthogonal to `o`. A drop
    /// shadow only darkens what lies outside (multiplies `o`), which projects to zero, so
    /// the shadow does not move the edge. The edge lies where the summed coverage ends.
    func edge(from start: Point, direction: Direction) throws -> Double {
        let horizontal = direction == .left || direction == .right
        let step = direction == .right || direction == .down ? 1 : -1
        let x0 = Int(start.x * scale)
        let y0 = Int(start.y * scale)
        func at(_ i: Int) -> SIMD3<Double> { horizontal ? pixel(i, y0) : pixel(x0, i) }
        let first = horizontal ? x0 : y0
        let limit = horizontal ? buffer.width : buffer.height
        var i = first + 3 * step
        while i >= 0 && i < limit {
            let d = at(i) - at(i - 3 * step)
            if max(abs(d.x), abs(d.y), abs(d.z)) > 48 { break }
            i += step
        }
        guard i >= 0 && i < limit else {
            throw NoEdge(description: "no edge from \(start) going \(direction)")
        }
        // `i` is the first pixel that differs; the transition lies within a pixel or two of it,
        // between the last flat pixel before it and the first flat pixel after it (within
        // 4 px: the gap between two list rows is under 4 px at 0.92 px/pt).
        func flat(_ a: Int, _ b: Int) -> Bool {
            let d = at(a) - at(b)
            return max(abs(d.x), abs(d.y), abs(d.z)) <= 8
        }
        var inner = i - step
        while !flat(inner, inner - step) && abs(inner - i) < 4 { inner -= step }
        var outer = i
        while !flat(outer, outer + step) && abs(outer - i) < 4 { outer += step }
        let c = at(inner)
        let o = at(outer)
        let oo = (o * o).sum()
        let u = oo > 0 ? c - o * ((c * o).sum() / oo) : c
        let uc = (u * c).sum()
        guard abs(uc) > 100 else {
            throw NoEdge(description: "no contrast at the edge from \(start) going \(direction)")
        }
        // Pixels inner+step … outer-step: coverage from 1 (inside) to 0 (outside).
        var covered = 0.0
        var j = inner + step
        while j != outer {
            covered += min(1, max(0, (u * at(j)).sum() / uc))
            j += step
        }
        // The window's inner boundary plus the covered length, in the scan's direction.
        let edge: Double
        if step > 0 {
            edge = Double(inner + 1) + covered
        } else {
            edge = Double(inner) - covered
        }
        return edge / scale
    }

    /// The axis-aligned outline of the shape containing `centre`, found along the scans
    /// through its middle third; each side measured three times and averaged.
    func box(around centre: Point) throws -> Rect {
        let mid = centre
        let l = try edge(from: mid, direction: .left)
        let r = try edge(from: mid, direction: .right)
        let t = try edge(from: mid, direction: .up)
        let b = try edge(from: mid, direction: .down)
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
        let dy = (b - t) / 6
        let dx = (r - l) / 6
        let left = mean([l] + (try [-dy, dy].map { try edge(from: Point(x: mid.x, y: mid.y + $0), direction: .left) }))
        let right = mean(
            [r] + (try [-dy, dy].map { try edge(from: Point(x: mid.x, y: mid.y + $0), direction: .right) }))
        let top = mean([t] + (try [-dx, dx].map { try edge(from: Point(x: mid.x + $0, y: mid.y), direction: .up) }))
        let bottom = mean(
            [b] + (try [-dx, dx].map { try edge(from: Point(x: mid.x + $0, y: mid.y), direction: .down) }))
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The radius of `box`'s `corner`, in points: each pixel row through the corner's curve
    /// gives the side's inset `i` at the height `t` from the box's edge, and a circle of
    /// radius r tangent to both sides has (r − i)² + (r − t)² = r², so r = i + t + √(2it).
    /// The mean over the rows between 15 % and 85 % of the curve's height.
    func cornerRadius(of box: Rect, _ corner: Corner) throws -> Double {
        let fromLeft = corner == .topLeft || corner == .bottomLeft
        let fromTop = corner == .topLeft || corner == .topRight
        // Rows at pixel centres from the box's top (or bottom) edge inwards, until the inset
        // is gone (the curve's height is the radius).
        let edgeY = (fromTop ? box.minY : box.maxY) * scale
        let sideX = (fromLeft ? box.minX : box.maxX) * scale
        var samples: [(t: Double, i: Double)] = []
        var row = fromTop ? Int(edgeY.rounded(.up)) : Int(edgeY.rounded(.down)) - 1
        while true {
            let t = fromTop ? Double(row) + 0.5 - edgeY : edgeY - (Double(row) + 0.5)
            let start = Point(x: box.center.x, y: (Double(row) + 0.5) / scale)
            let x = try edge(from: start, direction: fromLeft ? .left : .right) * scale
            let inset = fromLeft ? x - sideX : sideX - x
            if inset < 0.05 || t > 60 * scale { break }
            samples.append((t, inset))
            row += fromTop ? 1 : -1
        }
        guard let height = samples.last?.t else { throw NoEdge(description: "no rounded \(corner) corner") }
        let used = samples.filter { $0.t >= 0.15 * height && $0.t <= 0.85 * height }
        guard !used.isEmpty else { throw NoEdge(description: "the \(corner) corner's curve is under 2 px high") }
        let radii = used.map { $0.i + $0.t + (2 * $0.i * $0.t).squareRoot() }
        return radii.reduce(0, +) / Double(radii.count) / scale
    }

    struct TurnedBox {
        var centre: Point
        var size: Size
        /// Clockwise on screen, radians.
        var angle: Double
    }

    /// The outline of a turned rectangle about `centre` with roughly `halfSize`: each side a
    /// line fitted through the edges found along scans across its middle 60 %.
    func turnedBox(around centre: Point, halfSize: Size) throws -> TurnedBox {
        func fit(_ points: [(Double, Double)]) -> (a: Double, b: Double) {
            // v = a + b·w, least squares.
            let n = Double(points.count)
            let sw = points.reduce(0) { $0 + $1.0 }
            let sv = points.reduce(0) { $0 + $1.1 }
            let sww = points.reduce(0) { $0 + $1.0 * $1.0 }
            let swv = points.reduce(0) { $0 + $1.0 * $1.1 }
            let b = (n * swv - sw * sv) / (n * sww - sw * sw)
            return ((sv - b * sw) / n, b)
        }
        let offsets = (-6...6).map { Double($0) / 6 * 0.6 }
        // Top and bottom: y = a + b·x along vertical scans; left and right: x = a + b·y.
        var top: [(Double, Double)] = []
        var bottom: [(Double, Double)] = []
        for k in offsets {
            let x = ((centre.x + k * halfSize.width) * scale).rounded(.down) / scale
            let xc = x + 0.5 / scale
            top.append((xc, try edge(from: Point(x: x, y: centre.y), direction: .up)))
            bottom.append((xc, try edge(from: Point(x: x, y: centre.y), direction: .down)))
        }
        var left: [(Double, Double)] = []
        var right: [(Double, Double)] = []
        for k in offsets {
            let y = ((centre.y + k * halfSize.height) * scale).rounded(.down) / scale
            let yc = y + 0.5 / scale
            left.append((yc, try edge(from: Point(x: centre.x, y: y), direction: .left)))
            right.append((yc, try edge(from: Point(x: centre.x, y: y), direction: .right)))
        }
        let t = fit(top)
        let b = fit(bottom)
        let l = fit(left)
        let r = fit(right)
        // Top/bottom slope tan θ; left/right slope −tan θ: one angle from all four.
        let angle = (atan(t.b) + atan(b.b) - atan(l.b) - atan(r.b)) / 4
        // Corners: intersections of y = a1 + b1·x with x = a2 + b2·y.
        func corner(_ h: (a: Double, b: Double), _ v: (a: Double, b: Double)) -> Point {
            let y = (h.a + h.b * v.a) / (1 - h.b * v.b)
            return Point(x: v.a + v.b * y, y: y)
        }
        let corners = [corner(t, l), corner(t, r), corner(b, l), corner(b, r)]
        let c = Point(
            x: corners.reduce(0) { $0 + $1.x } / 4, y: corners.reduce(0) { $0 + $1.y } / 4)
        // Side lengths: the distance between the parallel lines' intercepts at the centre,
        // measured across them.
        let height = ((b.a + b.b * c.x) - (t.a + t.b * c.x)) * cos(atan((t.b + b.b) / 2))
        let width = ((r.a + r.b * c.y) - (l.a + l.b * c.y)) * cos(atan((l.b + r.b) / 2))
        return TurnedBox(centre: c, size: Size(width: width, height: height), angle: angle)
    }
}
