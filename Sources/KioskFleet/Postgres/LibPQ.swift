import CLibPQ
import KioskSystem

/// libpq's functions, looked up in libpq.so.5 when the first connection is made: a kiosk
/// without a fleet never maps libpq and its TLS, Kerberos and LDAP libraries (about 5 MB
/// resident and their loader time before the first frame). `CLibPQ` links nothing; it gives
/// the types and constants, and every call goes through this table (a direct call does not
/// link). Each field's type is the one Swift imports from libpq-fe.h.
struct LibPQ: Sendable {
    /// `PGconn *` and `PGresult *`: opaque structs, imported as `OpaquePointer`.
    typealias Conn = OpaquePointer
    typealias PGresult = OpaquePointer
    typealias CString = UnsafePointer<CChar>
    /// `PQnoticeProcessor`, spelled out as a C function type (a C typedef used inside these
    /// hand-written `@convention(c)` types is not trusted to keep its convention: see
    /// KioskSpeech's `EspeakFunctions.SynthCallback`).
    typealias NoticeProcessor = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void

    let connectdbParams: @convention(c) (UnsafePointer<CString?>?, UnsafePointer<CString?>?, Int32) -> Conn?
    let status: @convention(c) (Conn?) -> ConnStatusType
    let errorMessage: @convention(c) (Conn?) -> UnsafeMutablePointer<CChar>?
    let finish: @convention(c) (Conn?) -> Void
    let setNoticeProcessor: @convention(c) (Conn?, NoticeProcessor?, UnsafeMutableRawPointer?) -> NoticeProcessor?
    let socket: @convention(c) (Conn?) -> Int32
    let consumeInput: @convention(c) (Conn?) -> Int32
    let notifies: @convention(c) (Conn?) -> UnsafeMutablePointer<PGnotify>?
    let freemem: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let backendPID: @convention(c) (Conn?) -> Int32
    let conninfo: @convention(c) (Conn?) -> UnsafeMutablePointer<PQconninfoOption>?
    let conninfoFree: @convention(c) (UnsafeMutablePointer<PQconninfoOption>?) -> Void
    let conninfoParse:
        @convention(c) (CString?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutablePointer<
            PQconninfoOption
        >?
    let exec: @convention(c) (Conn?, CString?) -> PGresult?
    let execParams:
        @convention(c) (
            Conn?, CString?, Int32, UnsafePointer<Oid>?, UnsafePointer<CString?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?, Int32
        ) -> PGresult?
    let clear: @convention(c) (PGresult?) -> Void
    let resultStatus: @convention(c) (PGresult?) -> ExecStatusType
    let ntuples: @convention(c) (PGresult?) -> Int32
    let nfields: @convention(c) (PGresult?) -> Int32
    let fname: @convention(c) (PGresult?, Int32) -> UnsafeMutablePointer<CChar>?
    let getisnull: @convention(c) (PGresult?, Int32, Int32) -> Int32
    let getvalue: @convention(c) (PGresult?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
    let getlength: @convention(c) (PGresult?, Int32, Int32) -> Int32
    let cmdTuples: @convention(c) (PGresult?) -> UnsafeMutablePointer<CChar>?
    let encryptPasswordConn: @convention(c) (Conn?, CString?, CString?, CString?) -> UnsafeMutablePointer<CChar>?
    let resultErrorMessage: @convention(c) (PGresult?) -> UnsafeMutablePointer<CChar>?
    let resultErrorField: @convention(c) (PGresult?, Int32) -> UnsafeMutablePointer<CChar>?
    let escapeIdentifier: @convention(c) (Conn?, CString?, Int) -> UnsafeMutablePointer<CChar>?
    let escapeLiteral: @convention(c) (Conn?, CString?, Int) -> UnsafeMutablePointer<CChar>?

    /// The soname and its Debian package (trixie and bookworm: libpq5).
    static let soname = "libpq.so.5"
    static let debianPackage = "libpq5"

    init(_ lib: DynamicLibrary) throws(DynamicLibraryError) {
        connectdbParams = try lib.function("PQconnectdbParams")
        status = try lib.function("PQstatus")
        errorMessage = try lib.function("PQerrorMessage")
        finish = try lib.function("PQfinish")
        setNoticeProcessor = try lib.function("PQsetNoticeProcessor")
        socket = try lib.function("PQsocket")
        consumeInput = try lib.function("PQconsumeInput")
        notifies = try lib.function("PQnotifies")
        freemem = try lib.function("PQfreemem")
        backendPID = try lib.function("PQbackendPID")
        conninfo = try lib.function("PQconninfo")
        conninfoFree = try lib.function("PQconninfoFree")
        conninfoParse = try lib.function("PQconninfoParse")
        exec = try lib.function("PQexec")
        execParams = try lib.function("PQexecParams")
        clear = try lib.function("PQclear")
        resultStatus = try lib.function("PQresultStatus")
        ntuples = try lib.function("PQntuples")
        nfields = try lib.function("PQnfields")
        fname = try lib.function("PQfname")
        getisnull = try lib.function("PQgetisnull")
        getvalue = try lib.function("PQgetvalue")
        getlength = try lib.function("PQgetlength")
        cmdTuples = try lib.function("PQcmdTuples")
        encryptPasswordConn = try lib.function("PQencryptPasswordConn")
        resultErrorMessage = try lib.function("PQresultErrorMessage")
        resultErrorField = try lib.function("PQresultErrorField")
        escapeIdentifier = try lib.function("PQescapeIdentifier")
        escapeLiteral = try lib.function("PQescapeLiteral")
    }

    /// The process's one table, loaded at the first connection.
    static let shared = LibraryFunctions<LibPQ> {
        do throws(DynamicLibraryError) {
            return .success(try LibPQ(DynamicLibrary(soname, debianPackage: debianPackage)))
        } catch {
            return .failure(error)
        }
    }

    /// The table, or the fleet error a missing libpq is: the kiosk keeps its decisions and
    /// retries, as for an unreachable server.
    static func loaded() throws(FleetError) -> LibPQ {
        do throws(DynamicLibraryError) {
            return try shared.get()
        } catch {
            throw FleetError(kind: .clientLibraryMissing, message: error.problem)
        }
    }
}
