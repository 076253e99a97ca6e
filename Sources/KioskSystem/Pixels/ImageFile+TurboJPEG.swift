import CTurboJPEG

extension ImageFile {
    /// A JPEG's size from its frame header (libjpeg-turbo's `tjDecompressHeader3`, which reads
    /// markers, not pixels): the `jpegSize` that `check` is given by the deck loader and the
    /// renderer alike.
    package static func jpegSize(_ bytes: [UInt8]) -> Result<(width: Int, height: Int), LibraryError> {
        guard let tj = tjInitDecompress() else { return .failure(.init("libjpeg-turbo cannot start a decoder")) }
        defer { tjDestroy(tj) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsamp: Int32 = 0
        var colorspace: Int32 = 0
        let rc = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(tj, $0.baseAddress, UInt(bytes.count), &width, &height, &subsamp, &colorspace)
        }
        guard rc == 0 else { return .failure(.init(String(cString: tjGetErrorStr2(tj)))) }
        return .success((Int(width), Int(height)))
    }
}
