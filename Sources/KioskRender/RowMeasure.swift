import KioskSystem

/// `RowExtent.measure` and `RowRun.measure` with the same results, eight pixels at a time
/// where a row is uniform: the measures an `ElementImage` keeps of every image drawn.
///
/// Both look at every pixel of the image, and done one pixel at a time they were most of the
/// cost of an image drawn on the frame path: at 1920×1080, 40 of a detail page stand-in's 57 M
/// instructions, 16 of a list row's 24 M (`bench --worst`). An image is mostly long runs of one
/// value (transparent margins, the opaque inside of a card, one colour across a gradient's
/// row), which these skip as 64-bit words, two pixels each, four words a step.
/// `RenderRowMeasureTests` compares them with the one-pixel-at-a-time measures on drawn cards,
/// pages, rows and random images.
enum RowMeasure {
    /// Both measures of `image`, every row.
    static func measure(_ image: CairoImage) -> (extents: [RowExtent], runs: [RowRun]) {
        let src = UnsafePointer(image.data.assumingMemoryBound(to: UInt32.self))
        let sw = image.stride / 4
        let (w, h) = (image.width, image.height)
        var extents: [RowExtent] = []
        extents.reserveCapacity(h)
        var own: [RowRun.Band] = []
        own.reserveCapacity(h)
        for y in 0..<h {
            let row = src + y * sw
            extents.append(extent(row, width: w))
            own.append(longestRun(row, width: w, y: y))
        }
        return (extents, RowRun.joined(own))
    }

    /// Eight pixels from `x` as four words.
    @inline(__always) static func words(_ row: UnsafePointer<UInt32>, _ x: Int) -> (UInt64, UInt64, UInt64, UInt64) {
        let p = UnsafeRawPointer(row + x)
        return (
            p.loadUnaligned(as: UInt64.self), p.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
            p.loadUnaligned(fromByteOffset: 16, as: UInt64.self), p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
        )
    }

    static let alphas: UInt64 = 0xFF00_0000_FF00_0000

    /// `RowExtent.measure` of one row: the first and last pixel not 0 and the longest run
    /// (the first of equal ones) of opaque pixels between them.
    @inline(__always) static func extent(_ row: UnsafePointer<UInt32>, width w: Int) -> RowExtent {
        var first = 0
        while first &+ 8 <= w {
            let (a, b, c, d) = words(row, first)
            if a | b | c | d != 0 { break }
            first &+= 8
        }
        while first < w && row[first] == 0 { first &+= 1 }
        guard first < w else { return .empty }
        var end = w
        while end &- 8 >= first {
            let (a, b, c, d) = words(row, end &- 8)
            if a | b | c | d != 0 { break }
            end &-= 8
        }
        while row[end &- 1] == 0 { end &-= 1 }
        var best = (0, 0)
        var x = first
        while x < end {
            while x < end && row[x] < 0xFF00_0000 { x &+= 1 }
            let start = x
            while x &+ 8 <= end {
                let (a, b, c, d) = words(row, x)
                if a & b & c & d & alphas != alphas { break }
                x &+= 8
            }
            while x < end && row[x] >= 0xFF00_0000 { x &+= 1 }
            if x &- start > best.1 &- best.0 { best = (start, x) }
        }
        return RowExtent(first: Int32(first), end: Int32(end), opaqueFirst: Int32(best.0), opaqueEnd: Int32(best.1))
    }

    /// `RowRun.measure`'s band of one row: its longest run of one value (the first of equal ones).
    @inline(__always) static func longestRun(_ row: UnsafePointer<UInt32>, width w: Int, y: Int) -> RowRun.Band {
        var best = (start: 0, end: 0)
        var start = 0
        while start < w {
            let value = row[start]
            let pair = UInt64(value) | UInt64(value) << 32
            var x = start &+ 1
            while x &+ 8 <= w {
                let (a, b, c, d) = words(row, x)
                if (a ^ pair) | (b ^ pair) | (c ^ pair) | (d ^ pair) != 0 { break }
                x &+= 8
            }
            while x < w && row[x] == value { x &+= 1 }
            if x &- start > best.end &- best.start { best = (start, x) }
            start = x
        }
        return RowRun.Band(color: row[best.start], first: Int32(best.start), last: Int32(best.end), end: Int32(y))
    }
}

extension RowRun {
    /// Each row's own band joined with its neighbours' while the colour matches and the common
    /// run stays at least nine tenths as wide (as `measure` does). A band narrowed further is
    /// narrower on every row it spans (a stamp's clear inside joined down into the rows beside
    /// its label), and there the sampler walks four pixels at a time (docs/PERFORMANCE.md, the
    /// turned card, has the figures).
    static func joined(_ own: [Band]) -> [RowRun] {
        let h = own.count
        func joined(_ band: Band, _ next: Band) -> Band? {
            guard band.color == next.color else { return nil }
            let first = max(band.first, next.first)
            let last = min(band.last, next.last)
            guard (last - first) * 10 >= (band.last - band.first) * 9 else { return nil }
            return Band(color: band.color, first: first, last: last, end: next.end)
        }
        var down = own
        if h > 1 {
            for y in stride(from: h - 2, through: 0, by: -1) {
                if let j = joined(own[y], down[y + 1]) { down[y] = j }
            }
        }
        var up = own
        for y in 1..<max(1, h) {
            if let j = joined(own[y], up[y - 1]) { up[y] = j }
        }
        return (0..<h).map { RowRun(down: down[$0], up: up[$0]) }
    }
}
