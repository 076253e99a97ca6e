import Glibc

/// A shared library loaded when first needed (`dlopen`), not by the dynamic loader at start:
/// libpq for the fleet and espeak-ng/ALSA for speech, which a kiosk without them never maps.
///
/// Loaded with `RTLD_NOW | RTLD_LOCAL`: every symbol resolved at once (a missing one fails
/// here, not at the first call), nothing added to the global namespace. Never closed: the
/// libraries keep process-wide state (OpenSSL's, espeak-ng's voices) and a handle costs nothing
/// once loaded. It owns nothing, so it is a plain value.
package struct DynamicLibrary: @unchecked Sendable {
    // @unchecked: the handle is dlopen's, valid for the whole process; dlsym is thread-safe.

    /// The file name given to dlopen, e.g. "libpq.so.5".
    package let name: String
    /// The Debian package that holds the file, for the error's fix, e.g. "libpq5".
    package let debianPackage: String
    private let handle: UnsafeMutableRawPointer

    /// Loads `name` (a soname: the loader's search path, as for a linked library).
    package init(_ name: String, debianPackage: String) throws(DynamicLibraryError) {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            throw DynamicLibraryError(
                library: name, debianPackage: debianPackage, symbol: nil, reason: Self.lastError())
        }
        self.name = name
        self.debianPackage = debianPackage
        self.handle = handle
    }

    /// The function `symbol`, as the C function type `T` (`@convention(c) (…) -> …`): the
    /// caller states the type the header declares, which nothing here can check.
    package func function<T>(_ symbol: String, as type: T.Type = T.self) throws(DynamicLibraryError) -> T {
        _ = dlerror()  // clear a stale message, so the one below is this lookup's
        guard let address = dlsym(handle, symbol) else {
            throw DynamicLibraryError(
                library: name, debianPackage: debianPackage, symbol: symbol, reason: Self.lastError())
        }
        return unsafeBitCast(address, to: type)
    }

    private static func lastError() -> String {
        dlerror().map { String(cString: $0) } ?? "no reason given"
    }
}

/// A library that could not be loaded, or lacks a function, with the package that fixes it.
package struct DynamicLibraryError: Error, Hashable, Sendable, CustomStringConvertible {
    package var library: String
    package var debianPackage: String
    /// The missing function; nil when the library itself could not be loaded.
    package var symbol: String?
    /// dlerror()'s text.
    package var reason: String

    /// What went wrong, without the fix.
    package var problem: String {
        if let symbol { return "\(library) has no function '\(symbol)' (\(reason))" }
        return "\(library) cannot be loaded (\(reason))"
    }

    /// The problem and the fix: install the package, or upgrade it when a function is missing.
    package var description: String {
        let fix = symbol == nil ? "install" : "it is too old for KioskCards: upgrade"
        return "\(problem) — \(fix) Debian's \(debianPackage) (apt install \(debianPackage))"
    }
}

/// A table of a library's functions (a struct of `@convention(c)` fields filled by
/// `DynamicLibrary.function`), made on first use. A failed load is not kept: the next use
/// tries again, so installing the package helps without a restart.
package final class LibraryFunctions<Table: Sendable>: @unchecked Sendable {
    // @unchecked: `table` is only read and written under `lock`.
    private let lock = Condition()
    private var table: Table?
    private let load: @Sendable () -> Result<Table, DynamicLibraryError>

    /// `load` opens the library and looks up every function (called under a lock, on the
    /// thread of the first use: never the loop's for a library that takes time to load).
    package init(load: @escaping @Sendable () -> Result<Table, DynamicLibraryError>) {
        self.load = load
    }

    /// The table, loading the library if it is not loaded yet.
    package func get() throws(DynamicLibraryError) -> Table {
        lock.lock()
        defer { lock.unlock() }
        if let table { return table }
        switch load() {
        case .success(let made):
            table = made
            return made
        case .failure(let error):
            throw error
        }
    }

    /// Whether the library is loaded (without loading it).
    package var isLoaded: Bool {
        lock.lock()
        defer { lock.unlock() }
        return table != nil
    }
}
