// swift-tools-version:6.0
import PackageDescription

// The house, floor by floor (docs/ARCHITECTURE.md): CardModel is pure; KioskSystem is the
// ground floor (errors, files, event loop, log, signals, clocks, JSON); each pipeline target
// depends only on the floor, the model and its own C modules; the executable wires them.
let package = Package(
    name: "KioskCards",
    products: [
        .executable(name: "KioskCards", targets: ["KioskCards"]),
        .library(name: "CardModel", targets: ["CardModel"]),
    ],
    targets: [
        // C libraries from Debian's -dev packages; each shim holds only what Swift cannot import.
        .systemLibrary(name: "CLinux"),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CDrm", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(
            name: "CPangoCairo", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]
        ),
        // cairo's and pango's functions as the code calls them, loaded with dlopen on first use
        // (or ahead, on a thread: FontWarmUp), so that exec maps none of their 36 libraries.
        .target(name: "CGraphics", dependencies: ["CPangoCairo"]),
        // Headers only, no pkg-config (its -l flags would link them): these are loaded with
        // dlopen when first used (KioskSystem's DynamicLibrary), so a kiosk without photos, QR
        // codes, a staff PIN, a fleet or speech never maps them, and a tool or the bench's probe
        // that opens no store never maps SQLite (docs/PERFORMANCE.md, "Libraries loaded when
        // used").
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypt", providers: [.apt(["libcrypt-dev"])]),
        .systemLibrary(name: "CTurboJPEG", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CQRencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CEspeakNG", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CALSA", providers: [.apt(["libasound2-dev"])]),

        // The pure heart: touches in, effects and a scene out. No C, no clock, no I/O.
        .target(name: "CardModel"),

        // The ground floor.
        .target(name: "KioskSystem", dependencies: ["CardModel", "CLinux", "CTurboJPEG"]),

        // The pipeline: input → deck files → render → display, and the store.
        .target(name: "KioskInput", dependencies: ["KioskSystem", "CardModel", "CEvdev", "CLinux"]),
        .target(name: "KioskDeckFiles", dependencies: ["KioskSystem", "CardModel"]),
        // Optimised in debug builds too: the compositor's SIMD loops unoptimised are ~50× slower,
        // and they are most of the unit tests' time (far more under qemu-user, the arm64 lane).
        .target(
            name: "KioskRender",
            dependencies: ["KioskSystem", "CardModel", "CPangoCairo", "CGraphics", "CTurboJPEG", "CQRencode"],
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .target(name: "KioskDisplay", dependencies: ["KioskSystem", "CardModel", "CDrm", "CLinux"]),
        .target(name: "KioskStore", dependencies: ["KioskSystem", "CardModel", "CSQLite"]),
        // The fleet's central PostgreSQL (docs/FLEET.md); it never reads the kiosk's SQLite.
        .target(name: "KioskFleet", dependencies: ["KioskSystem", "CardModel", "CLibPQ"]),
        .target(name: "KioskSpeech", dependencies: ["KioskSystem", "CEspeakNG", "CALSA"]),
        // The report: its domain, its SQL in both dialects, its figures. Databases come in through
        // `ReportDatabase`, which the executable adapts to the store's SQLite and the fleet's PostgreSQL.
        .target(name: "KioskReport", dependencies: ["KioskSystem", "CardModel"]),

        // The top floor: App/ runs the kiosk, Tools/ holds every subcommand.
        .executableTarget(
            name: "KioskCards",
            dependencies: [
                "CardModel", "KioskSystem", "KioskInput", "KioskDeckFiles", "KioskRender", "KioskDisplay",
                "KioskStore", "KioskFleet", "KioskSpeech", "KioskReport", "CPangoCairo", "CEvdev", "CDrm", "CLinux",
                "CCrypt",
            ]
        ),

        // Tests mirror the targets (docs/TESTING.md): one test target per target, each using its
        // target, the floors below it and KioskTestSupport (temp directories, fixtures, test
        // servers, the built binary's path); only KioskCardsTests imports the executable.
        .target(
            name: "KioskTestSupport",
            dependencies: [
                "CardModel", "KioskSystem", "KioskInput", "KioskRender", "KioskStore", "KioskFleet", "CEvdev",
                "CPangoCairo",
            ],
            path: "Tests/KioskTestSupport"
        ),
        .testTarget(name: "CardModelTests", dependencies: ["CardModel"]),
        .testTarget(
            name: "KioskSystemTests", dependencies: ["KioskSystem", "CardModel", "CLinux", "KioskTestSupport"]),
        .testTarget(
            name: "KioskInputTests",
            dependencies: ["KioskInput", "KioskSystem", "CardModel", "CEvdev", "KioskTestSupport"]
        ),
        // The image check's PNGs are written by cairo (KioskRender), a writer outside the code under test.
        .testTarget(
            name: "KioskDeckFilesTests",
            dependencies: ["KioskDeckFiles", "KioskSystem", "CardModel", "KioskRender", "KioskTestSupport"]
        ),
        .testTarget(
            name: "KioskRenderTests",
            dependencies: ["KioskRender", "KioskSystem", "CardModel", "CPangoCairo", "CGraphics", "KioskTestSupport"]
        ),
        .testTarget(
            name: "KioskDisplayTests", dependencies: ["KioskDisplay", "KioskSystem", "CardModel", "KioskTestSupport"]),
        .testTarget(
            name: "KioskStoreTests",
            dependencies: [
                "KioskStore", "KioskDeckFiles", "KioskSystem", "CardModel", "CSQLite", "CLinux", "KioskTestSupport",
            ]
        ),
        // The report's tests run the built `simulate` and `report` and recompute every figure from raw rows.
        .testTarget(
            name: "KioskReportTests",
            dependencies: ["KioskReport", "KioskStore", "KioskSystem", "CardModel", "KioskTestSupport"]
        ),
        .testTarget(
            name: "KioskFleetTests", dependencies: ["KioskFleet", "KioskSystem", "CardModel", "KioskTestSupport"]),
        .testTarget(
            name: "KioskSpeechTests", dependencies: ["KioskSpeech", "KioskSystem", "CardModel", "KioskTestSupport"]),
        // The executable's own code: App/ and Tools/.
        .testTarget(
            name: "KioskCardsTests",
            dependencies: [
                "KioskCards", "CardModel", "KioskSystem", "KioskInput", "KioskDeckFiles", "KioskRender",
                "KioskDisplay", "KioskStore", "KioskFleet", "KioskSpeech", "KioskReport", "KioskTestSupport",
            ],
            exclude: ["Fixtures"]  // the goldens, read by path, not bundled
        ),
    ]
)
