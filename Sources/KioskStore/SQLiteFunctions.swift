import CSQLite
import KioskSystem

/// SQLite's functions, looked up in libsqlite3.so.0 when the first database is opened (the
/// store, `export`, `report --data`): a process that opens none (the bench's probe, `render`,
/// `check-deck`) never maps the library, nor resolves its 1,600 symbol bindings at start.
/// `CSQLite` links nothing; it gives the types and constants, and every call goes through this
/// table. Each field's type is the one Swift imports from sqlite3.h (SQLite 3.40, Debian
/// bookworm; 3.46, trixie).
package struct SQLiteFunctions: @unchecked Sendable {
    // @unchecked: `dbConfig` is a function's address in a library never closed, as the
    // `@convention(c)` fields are.
    typealias DB = OpaquePointer
    typealias Statement = OpaquePointer

    let open:
        @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?, Int32, UnsafePointer<CChar>?) ->
            Int32
    let closeV2: @convention(c) (DB?) -> Int32
    let errmsg: @convention(c) (DB?) -> UnsafePointer<CChar>?
    let errstr: @convention(c) (Int32) -> UnsafePointer<CChar>?
    let extendedErrcode: @convention(c) (DB?) -> Int32
    let systemErrno: @convention(c) (DB?) -> Int32
    let extendedResultCodes: @convention(c) (DB?, Int32) -> Int32
    let busyTimeout: @convention(c) (DB?, Int32) -> Int32
    /// sqlite3_db_config's address: variadic, called through `CSQLite_db_config_int`.
    let dbConfig: UnsafeMutableRawPointer
    let exec:
        @convention(c) (
            DB?, UnsafePointer<CChar>?,
            (
                @convention(c) (
                    UnsafeMutableRawPointer?, Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                    UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
                ) -> Int32
            )?,
            UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        ) -> Int32
    let free: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let prepare:
        @convention(c) (
            DB?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?,
            UnsafeMutablePointer<UnsafePointer<CChar>?>?
        ) -> Int32
    let finalize: @convention(c) (Statement?) -> Int32
    let step: @convention(c) (Statement?) -> Int32
    let reset: @convention(c) (Statement?) -> Int32
    let clearBindings: @convention(c) (Statement?) -> Int32
    let bindText: @convention(c) (Statement?, Int32, UnsafePointer<CChar>?, Int32, sqlite3_destructor_type?) -> Int32
    let bindInt64: @convention(c) (Statement?, Int32, sqlite3_int64) -> Int32
    let bindDouble: @convention(c) (Statement?, Int32, Double) -> Int32
    let bindNull: @convention(c) (Statement?, Int32) -> Int32
    let bindParameterCount: @convention(c) (Statement?) -> Int32
    let bindParameterName: @convention(c) (Statement?, Int32) -> UnsafePointer<CChar>?
    let columnCount: @convention(c) (Statement?) -> Int32
    let columnType: @convention(c) (Statement?, Int32) -> Int32
    let columnDouble: @convention(c) (Statement?, Int32) -> Double
    let columnInt64: @convention(c) (Statement?, Int32) -> sqlite3_int64
    let columnText: @convention(c) (Statement?, Int32) -> UnsafePointer<UInt8>?

    init(_ lib: DynamicLibrary) throws(DynamicLibraryError) {
        open = try lib.function("sqlite3_open_v2")
        closeV2 = try lib.function("sqlite3_close_v2")
        errmsg = try lib.function("sqlite3_errmsg")
        errstr = try lib.function("sqlite3_errstr")
        extendedErrcode = try lib.function("sqlite3_extended_errcode")
        systemErrno = try lib.function("sqlite3_system_errno")
        extendedResultCodes = try lib.function("sqlite3_extended_result_codes")
        busyTimeout = try lib.function("sqlite3_busy_timeout")
        dbConfig = try lib.function("sqlite3_db_config")
        exec = try lib.function("sqlite3_exec")
        free = try lib.function("sqlite3_free")
        prepare = try lib.function("sqlite3_prepare_v2")
        finalize = try lib.function("sqlite3_finalize")
        step = try lib.function("sqlite3_step")
        reset = try lib.function("sqlite3_reset")
        clearBindings = try lib.function("sqlite3_clear_bindings")
        bindText = try lib.function("sqlite3_bind_text")
        bindInt64 = try lib.function("sqlite3_bind_int64")
        bindDouble = try lib.function("sqlite3_bind_double")
        bindNull = try lib.function("sqlite3_bind_null")
        bindParameterCount = try lib.function("sqlite3_bind_parameter_count")
        bindParameterName = try lib.function("sqlite3_bind_parameter_name")
        columnCount = try lib.function("sqlite3_column_count")
        columnType = try lib.function("sqlite3_column_type")
        columnDouble = try lib.function("sqlite3_column_double")
        columnInt64 = try lib.function("sqlite3_column_int64")
        columnText = try lib.function("sqlite3_column_text")
    }

    /// The process's one table, loaded by the first database opened (on the thread that opens it).
    static let shared = LibraryFunctions<SQLiteFunctions> {
        do throws(DynamicLibraryError) {
            return .success(try SQLiteFunctions(DynamicLibrary("libsqlite3.so.0", debianPackage: "libsqlite3-0")))
        } catch {
            return .failure(error)
        }
    }

    /// The table, or the error a database that cannot be opened for want of it reports.
    static func loaded(path: String) throws(SQLiteError) -> SQLiteFunctions {
        do throws(DynamicLibraryError) {
            return try shared.get()
        } catch {
            throw SQLiteError(call: "dlopen", code: SQLITE_CANTOPEN, message: error.description, path: path)
        }
    }
}
