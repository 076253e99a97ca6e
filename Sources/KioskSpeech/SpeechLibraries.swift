import CALSA
import CEspeakNG
import KioskSystem

/// espeak-ng's functions, looked up in libespeak-ng.so.1 when the kiosk first speaks: a
/// kiosk with speech off never maps espeak-ng and its audio libraries (about 2.6 MB resident,
/// and their loader time before the first frame). `CEspeakNG` links nothing; it gives the
/// types and constants, and every call goes through this table (a direct call does not link).
/// Each field's type is the one Swift imports from espeak_ng.h / speak_lib.h.
struct EspeakFunctions: Sendable {
    typealias CString = UnsafePointer<CChar>
    /// `t_espeak_callback *`, spelled out: speak_lib.h's `t_espeak_callback` is a function
    /// type (not a pointer), and used inside this table's `@convention(c)` types Swift 6.3
    /// passes a closure of it as a block, which espeak-ng then calls as code.
    typealias SynthCallback =
        @convention(c) (UnsafeMutablePointer<Int16>?, Int32, UnsafeMutablePointer<espeak_EVENT>?) -> Int32

    let getStatusCodeMessage: @convention(c) (espeak_ng_STATUS, UnsafeMutablePointer<CChar>?, Int) -> Void
    let initializePath: @convention(c) (CString?) -> Void
    let initialize: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> espeak_ng_STATUS
    let initializeOutput: @convention(c) (espeak_ng_OUTPUT_MODE, Int32, CString?) -> espeak_ng_STATUS
    let setSynthCallback: @convention(c) (SynthCallback?) -> Void
    let getSampleRate: @convention(c) () -> Int32
    let setVoiceByName: @convention(c) (CString?) -> espeak_ng_STATUS
    let synthesize:
        @convention(c) (
            UnsafeRawPointer?, Int, UInt32, espeak_POSITION_TYPE, UInt32, UInt32, UnsafeMutablePointer<UInt32>?,
            UnsafeMutableRawPointer?
        ) -> espeak_ng_STATUS

    init(_ lib: DynamicLibrary) throws(DynamicLibraryError) {
        getStatusCodeMessage = try lib.function("espeak_ng_GetStatusCodeMessage")
        initializePath = try lib.function("espeak_ng_InitializePath")
        initialize = try lib.function("espeak_ng_Initialize")
        initializeOutput = try lib.function("espeak_ng_InitializeOutput")
        setSynthCallback = try lib.function("espeak_SetSynthCallback")
        getSampleRate = try lib.function("espeak_ng_GetSampleRate")
        setVoiceByName = try lib.function("espeak_ng_SetVoiceByName")
        synthesize = try lib.function("espeak_ng_Synthesize")
    }

    /// The process's one table (Debian's libespeak-ng1, bookworm and trixie), loaded by the
    /// speech worker's first text.
    static let shared = LibraryFunctions<EspeakFunctions> {
        do throws(DynamicLibraryError) {
            return .success(try EspeakFunctions(DynamicLibrary("libespeak-ng.so.1", debianPackage: "libespeak-ng1")))
        } catch {
            return .failure(error)
        }
    }
}

/// ALSA's PCM functions, looked up in libasound.so.2 when speech first plays on a device
/// (only speech plays sound). Like `EspeakFunctions`: `CALSA` links nothing.
struct AlsaFunctions: Sendable {
    let pcmOpen:
        @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?, snd_pcm_stream_t, Int32) -> Int32
    let pcmClose: @convention(c) (OpaquePointer?) -> Int32
    let pcmSetParams:
        @convention(c) (OpaquePointer?, snd_pcm_format_t, snd_pcm_access_t, UInt32, UInt32, Int32, UInt32) -> Int32
    let pcmWritei: @convention(c) (OpaquePointer?, UnsafeRawPointer?, snd_pcm_uframes_t) -> snd_pcm_sframes_t
    let pcmRecover: @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    let pcmDrain: @convention(c) (OpaquePointer?) -> Int32
    let strerror: @convention(c) (Int32) -> UnsafePointer<CChar>?

    init(_ lib: DynamicLibrary) throws(DynamicLibraryError) {
        pcmOpen = try lib.function("snd_pcm_open")
        pcmClose = try lib.function("snd_pcm_close")
        pcmSetParams = try lib.function("snd_pcm_set_params")
        pcmWritei = try lib.function("snd_pcm_writei")
        pcmRecover = try lib.function("snd_pcm_recover")
        pcmDrain = try lib.function("snd_pcm_drain")
        strerror = try lib.function("snd_strerror")
    }

    /// The process's one table (Debian's libasound2; trixie's package is libasound2t64, which
    /// provides libasound2), loaded by the first playback.
    static let shared = LibraryFunctions<AlsaFunctions> {
        do throws(DynamicLibraryError) {
            return .success(try AlsaFunctions(DynamicLibrary("libasound.so.2", debianPackage: "libasound2")))
        } catch {
            return .failure(error)
        }
    }
}
