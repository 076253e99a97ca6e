// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "KioskCards",
    products: [
        .executable(name: "KioskCards", targets: ["KioskCards"]),
        .library(name: "CardModel", targets: ["CardModel"]),
    ],
    targets: [
        .systemLibrary(
            name: "CEvdev",
            pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]
        ),
        .systemLibrary(
            name: "CDrm",
            pkgConfig: "libdrm",
            providers: [.apt(["libdrm-dev"])]
        ),
        .systemLibrary(
            name: "CPangoCairo",
            pkgConfig: "pangocairo",
            providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CTurboJPEG",
            pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]
        ),
        .target(name: "CardModel"),
        .executableTarget(
            name: "KioskCards",
            dependencies: ["CardModel", "CEvdev", "CDrm", "CPangoCairo", "CSQLite", "CTurboJPEG"]
        ),
        .testTarget(name: "CardModelTests", dependencies: ["CardModel"]),
        .testTarget(
            name: "KioskCardsTests", dependencies: ["KioskCards", "CardModel"],
            exclude: ["Fixtures"]  // evemu/text fixtures read by path, not bundled
        ),
    ]
)
