import CardModel
import KioskSystem

extension ScanoutCopy {
    /// The panel picture of a logical (upright) frame turned by `rotation` and converted to
    /// `format`, as the display's copy leaves it in scanout memory (computed from the frame in
    /// ordinary memory, never read back from scanout): what `render` writes and a screenshot
    /// from afar sends. An RGB565 picture is widened back to 8 bits a channel as a screendump widens it.
    package static func panelPicture(_ logical: PixelBuffer, rotation: Rotation, format: PixelFormat = .xrgb8888)
        -> PixelBuffer
    {
        guard rotation != .deg0 || format != .xrgb8888 else { return logical }
        let physical = rotation.logicalSize(
            physical: Size(width: Double(logical.width), height: Double(logical.height)))
        let out = PixelBuffer(width: Int(physical.width), height: Int(physical.height))
        switch format {
        case .xrgb8888:
            // The same turn the display applies while copying a frame to its scanout buffer.
            ScanoutCopy.copy(
                logical, damage: logical.bounds, rotation: rotation, to: out.pixels, destinationStride: out.stride)
        case .rgb565:
            // The same copy into a 16-bit buffer, then each pixel widened.
            let stride = out.width * 2
            let scanout = UnsafeMutableRawPointer.allocate(byteCount: stride * out.height, alignment: 64)
            defer { scanout.deallocate() }
            ScanoutCopy.copy(
                logical, damage: logical.bounds, rotation: rotation, format: .rgb565, to: scanout,
                destinationStride: stride
            )
            for y in 0..<out.height {
                let s = (scanout + y * stride).assumingMemoryBound(to: UInt16.self)
                let d = (out.pixels + y * out.stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<out.width { d[x] = PixelFormat.xrgb8888(fromRGB565: s[x]) }
            }
        }
        return out
    }
}
