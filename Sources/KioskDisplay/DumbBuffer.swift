import CDrm
import Glibc
import KioskSystem

/// A dumb buffer (XRGB8888 or RGB565) with its framebuffer, mapped once for writing.
///
/// Owns the GEM handle, the mapping and the framebuffer id; borrows the device's fd (the
/// device must outlive it). Never read through `pixels`: it may be write-combined memory.
struct DumbBuffer: ~Copyable {
    let fd: Int32
    let width: Int
    let height: Int
    let format: PixelFormat
    /// Bytes per row as the driver chose (≥ width × bytes per pixel, often padded).
    let stride: Int
    let size: Int
    let handle: UInt32
    let framebufferID: DrmObjectID
    let pixels: UnsafeMutableRawPointer

    /// `drmModeCreateDumbBuffer` + `drmModeMapDumbBuffer` + `mmap` + `drmModeAddFB2`
    /// (libdrm calls return -errno; mmap returns MAP_FAILED + errno). Undoes what succeeded on failure.
    init(device: borrowing DrmDevice, width: Int, height: Int, format: PixelFormat) throws(SystemCallError) {
        let fd = device.fd
        var handle: UInt32 = 0
        var pitch: UInt32 = 0
        var size: UInt64 = 0
        var r = drmModeCreateDumbBuffer(
            fd, UInt32(width), UInt32(height), UInt32(format.bytesPerPixel * 8), 0, &handle, &pitch, &size)
        if r < 0 {
            throw SystemCallError(call: "drmModeCreateDumbBuffer", errno: Errno(-r), detail: "\(width)x\(height)")
        }
        var offset: UInt64 = 0
        r = drmModeMapDumbBuffer(fd, handle, &offset)
        if r < 0 {
            _ = drmModeDestroyDumbBuffer(fd, handle)
            throw SystemCallError(call: "drmModeMapDumbBuffer", errno: Errno(-r), detail: "handle \(handle)")
        }
        let map = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset))
        guard let map, map != MAP_FAILED else {
            let e = Errno.current
            _ = drmModeDestroyDumbBuffer(fd, handle)
            throw SystemCallError(call: "mmap", errno: e, detail: "dumb buffer \(handle)")
        }
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (pitch, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        var fb: UInt32 = 0
        r = withUnsafeMutableBytes(of: &handles) { h in
            withUnsafeMutableBytes(of: &pitches) { p in
                withUnsafeMutableBytes(of: &offsets) { o in
                    drmModeAddFB2(
                        fd, UInt32(width), UInt32(height), format.fourcc,
                        h.baseAddress!.assumingMemoryBound(to: UInt32.self),
                        p.baseAddress!.assumingMemoryBound(to: UInt32.self),
                        o.baseAddress!.assumingMemoryBound(to: UInt32.self), &fb, 0)
                }
            }
        }
        if r < 0 {
            munmap(map, Int(size))
            _ = drmModeDestroyDumbBuffer(fd, handle)
            throw SystemCallError(call: "drmModeAddFB2", errno: Errno(-r), detail: "\(width)x\(height) \(format)")
        }
        self.fd = fd
        self.width = width
        self.height = height
        self.format = format
        self.stride = Int(pitch)
        self.size = Int(size)
        self.handle = handle
        self.framebufferID = fb
        self.pixels = map
        // Fresh dumb buffers are zeroed by the kernel: black.
    }

    deinit {
        _ = drmModeRmFB(fd, framebufferID)
        munmap(pixels, size)
        _ = drmModeDestroyDumbBuffer(fd, handle)
    }

    /// Fills the whole buffer with black (write-only).
    func fillBlack() {
        for y in 0..<height { memset(pixels + y * stride, 0, width * format.bytesPerPixel) }
    }
}

/// The two scanout buffers: one on screen, one being written.
struct DumbBufferPair: ~Copyable {
    let first: DumbBuffer
    let second: DumbBuffer

    init(device: borrowing DrmDevice, width: Int, height: Int, format: PixelFormat) throws(SystemCallError) {
        let a = try DumbBuffer(device: device, width: width, height: height, format: format)
        let b = try DumbBuffer(device: device, width: width, height: height, format: format)
        first = a
        second = b
    }

    func with<R>(_ index: Int, _ body: (borrowing DumbBuffer) throws -> R) rethrows -> R {
        index == 0 ? try body(first) : try body(second)
    }
}
