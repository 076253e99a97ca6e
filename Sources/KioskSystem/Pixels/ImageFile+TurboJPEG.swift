extension ImageFile {
    /// A JPEG's size from its frame header (libjpeg-turbo's `tjDecompressHeader3`, which reads
    /// markers, not pixels): the `jpegSize` that `check` is given by the deck loader and the
    /// renderer alike. The library is loaded by the first call (`TurboJPEGFunctions`); without
    /// it the error names the package to install.
    package static func jpegSize(_ bytes: [UInt8]) -> Result<(width: Int, height: Int), LibraryError> {
        let tj: TurboJPEGFunctions
        do { tj = try TurboJPEGFunctions.shared.get() } catch { return .failure(.init(error.description)) }
        guard let handle = tj.initDecompress() else { return .failure(.init("libjpeg-turbo cannot start a decoder")) }
        defer { _ = tj.destroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsamp: Int32 = 0
        var colorspace: Int32 = 0
        let rc = bytes.withUnsafeBufferPointer {
            tj.decompressHeader3(handle, $0.baseAddress, UInt(bytes.count), &width, &height, &subsamp, &colorspace)
        }
        guard rc == 0 else { return .failure(.init(tj.errorText(handle))) }
        return .success((Int(width), Int(height)))
    }
}
