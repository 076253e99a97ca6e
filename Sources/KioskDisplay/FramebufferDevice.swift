import CDrm
import CLinux
import Glibc
import KioskSystem

/// A framebuffer device (`/dev/fbN`), mapped for writing: the fallback for panels without a
/// DRM driver (small SPI panels on older kernels).
package struct FramebufferDevice: ~Copyable {
    let fd: Int32
    let path: String
    package let width: Int
    package let height: Int
    package let stride: Int
    package let format: FbPixelFormat
    package let widthMM: Int
    package let heightMM: Int
    /// The driver's id string (`fb_fix_screeninfo.id`), e.g. `fb_ili9341`.
    package let identifier: String
    let size: Int
    let pixels: UnsafeMutableRawPointer

    /// Opens and maps `path` (FBIOGET_VSCREENINFO / FBIOGET_FSCREENINFO; ioctl and mmap return
    /// -1 + errno).
    package init(path: String) throws(DisplayError) {
        var st = stat()
        if stat(path, &st) != 0 {
            if Errno.current == .noEntry { throw .notFound(path: path) }
            throw .system(SystemCallError(call: "stat", errno: .current, detail: path))
        }
        guard st.st_mode & S_IFMT == S_IFCHR else { throw .notADevice(path: path) }
        let fd = open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 {
            let e = Errno.current
            if e == .permissionDenied {
                throw .permissionDenied(path: path, user: DrmDevice.userName(), group: DrmDevice.groupName(st.st_gid))
            }
            throw .system(SystemCallError(call: "open", errno: e, detail: path))
        }
        var v = fb_var_screeninfo()
        var f = fb_fix_screeninfo()
        guard ioctl(fd, UInt(FBIOGET_VSCREENINFO), &v) == 0, ioctl(fd, UInt(FBIOGET_FSCREENINFO), &f) == 0 else {
            let e = Errno.current
            close(fd)
            throw .system(SystemCallError(call: "ioctl(FBIOGET_*SCREENINFO)", errno: e, detail: path))
        }
        let format = FbPixelFormat(
            bitsPerPixel: Int(v.bits_per_pixel),
            red: (Int(v.red.offset), Int(v.red.length)), green: (Int(v.green.offset), Int(v.green.length)),
            blue: (Int(v.blue.offset), Int(v.blue.length)))
        guard format.isSupported else {
            close(fd)
            throw .system(
                SystemCallError(
                    call: "fbdev format", errno: Errno(EINVAL), detail: "\(path): \(v.bits_per_pixel) bpp unsupported"))
        }
        let size = Int(f.smem_len)
        let map = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let map, map != MAP_FAILED else {
            let e = Errno.current
            close(fd)
            throw .system(SystemCallError(call: "mmap", errno: e, detail: path))
        }
        self.fd = fd
        self.path = path
        self.width = Int(v.xres)
        self.height = Int(v.yres)
        self.stride = Int(f.line_length)
        self.format = format
        self.widthMM = Int(Int32(bitPattern: v.width)) > 0 ? Int(v.width) : 0
        self.heightMM = Int(Int32(bitPattern: v.height)) > 0 ? Int(v.height) : 0
        self.identifier = DrmDevice.string(f.id)
        self.size = size
        self.pixels = map
    }

    deinit {
        munmap(pixels, size)
        close(fd)
    }
}

/// A framebuffer's pixel layout (`fb_var_screeninfo` bitfields), and conversion to it from
/// XRGB8888.
package struct FbPixelFormat: Sendable, CustomStringConvertible {
    var bitsPerPixel: Int
    var red: (offset: Int, length: Int)
    var green: (offset: Int, length: Int)
    var blue: (offset: Int, length: Int)

    static let rgb565 = FbPixelFormat(bitsPerPixel: 16, red: (11, 5), green: (5, 6), blue: (0, 5))
    static let xrgb8888 = FbPixelFormat(bitsPerPixel: 32, red: (16, 8), green: (8, 8), blue: (0, 8))

    var bytesPerPixel: Int { bitsPerPixel / 8 }
    var isSupported: Bool { [16, 24, 32].contains(bitsPerPixel) }
    var isRGB565: Bool {
        bitsPerPixel == 16 && red == (11, 5) && green == (5, 6) && blue == (0, 5)
    }
    var isXRGB8888: Bool {
        bitsPerPixel == 32 && red == (16, 8) && green == (8, 8) && blue == (0, 8)
    }

    /// One XRGB8888 pixel in this format (the top bits of each channel).
    func pack(_ xrgb: UInt32) -> UInt32 {
        func channel(_ v: UInt32, _ f: (offset: Int, length: Int)) -> UInt32 {
            guard f.length > 0 else { return 0 }
            return (v >> UInt32(8 - min(8, f.length))) << UInt32(f.offset)
        }
        return channel((xrgb >> 16) & 0xFF, red) | channel((xrgb >> 8) & 0xFF, green) | channel(xrgb & 0xFF, blue)
    }

    /// Converts `count` XRGB8888 pixels at `source` into this format at `destination`.
    func convertRow(_ source: UnsafePointer<UInt32>, to destination: UnsafeMutableRawPointer, count: Int) {
        if isXRGB8888 {
            memcpy(destination, source, count * 4)
        } else if isRGB565 {
            let d = destination.assumingMemoryBound(to: UInt16.self)
            for i in 0..<count {
                let p = source[i]
                d[i] = UInt16(truncatingIfNeeded: (p >> 8) & 0xF800 | (p >> 5) & 0x07E0 | (p >> 3) & 0x001F)
            }
        } else {
            switch bitsPerPixel {
            case 32:
                let d = destination.assumingMemoryBound(to: UInt32.self)
                for i in 0..<count { d[i] = pack(source[i]) }
            case 16:
                let d = destination.assumingMemoryBound(to: UInt16.self)
                for i in 0..<count { d[i] = UInt16(truncatingIfNeeded: pack(source[i])) }
            default:  // 24: three little-endian bytes
                for i in 0..<count {
                    let v = pack(source[i])
                    destination.storeBytes(of: UInt8(v & 0xFF), toByteOffset: i * 3, as: UInt8.self)
                    destination.storeBytes(of: UInt8((v >> 8) & 0xFF), toByteOffset: i * 3 + 1, as: UInt8.self)
                    destination.storeBytes(of: UInt8((v >> 16) & 0xFF), toByteOffset: i * 3 + 2, as: UInt8.self)
                }
            }
        }
    }

    /// Converts rectangle `r` of an XRGB8888 image into the same rectangle of a framebuffer.
    func convert(
        from source: UnsafeRawPointer, sourceStride: Int, rect r: PixelRect,
        to destination: UnsafeMutableRawPointer, destinationStride: Int
    ) {
        guard !r.isEmpty else { return }
        for y in r.y..<r.maxY {
            let s = (source + y * sourceStride).assumingMemoryBound(to: UInt32.self) + r.x
            convertRow(s, to: destination + y * destinationStride + r.x * bytesPerPixel, count: r.width)
        }
    }

    package var description: String {
        "\(bitsPerPixel) bpp R\(red.length)@\(red.offset) G\(green.length)@\(green.offset) B\(blue.length)@\(blue.offset)"
    }
}
