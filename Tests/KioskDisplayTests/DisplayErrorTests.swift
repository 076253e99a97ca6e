import Glibc
import KioskTestSupport
import Testing

@testable import KioskDisplay
@testable import KioskSystem

/// The display's errors, driven with real files: a missing path, a regular file, /dev/null,
/// a file the user may not open. (There is no DRM device here; the virtual machine runs the
/// busy and no-permission cases against a real card node.)
@Suite struct DisplayErrorTests {
    static func temporaryFile(mode: mode_t) -> String {
        var template = Array("/tmp/kiosk-display-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        precondition(fd >= 0)
        close(fd)
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        chmod(path, mode)
        return path
    }

    @Test func missingPathSaysHowToFindOne() {
        do {
            _ = try DrmDevice(path: "/dev/dri/card99")
            Issue.record("opened a missing device")
        } catch {
            guard case .notFound = error else {
                Issue.record("expected notFound, got \(error)")
                return
            }
            #expect(error.description.contains("/dev/dri/card99 does not exist"))
            #expect(error.description.contains("KioskCards probe"))
        }
    }

    @Test func regularFileIsNotADevice() {
        let path = Self.temporaryFile(mode: 0o644)
        defer { unlink(path) }
        do {
            _ = try DrmDevice(path: path)
            Issue.record("opened a regular file as DRM")
        } catch {
            guard case .notADevice = error else {
                Issue.record("expected notADevice, got \(error)")
                return
            }
            #expect(error.description.contains("not a device node"))
        }
        #expect(throws: DisplayError.self) { _ = try FramebufferDevice(path: path) }
    }

    @Test func characterDeviceThatIsNotDrm() {
        // /dev/null is a real character device without DRM ioctls.
        do {
            _ = try DrmDevice(path: "/dev/null")
            Issue.record("took /dev/null for a DRM device")
        } catch {
            guard case .notDrm = error else {
                Issue.record("expected notDrm, got \(error)")
                return
            }
            #expect(error.description.contains("not a DRM device"))
        }
    }

    /// Permission denied needs a user the kernel refuses. As a non-root user a mode-000 file is
    /// refused directly; root bypasses file modes, so then the real `KioskCards` binary (built
    /// beside this test bundle) runs as `nobody` through `setpriv` and its message is checked.
    @Test func permissionDeniedNamesTheGroupAndTheUser() throws {
        let path = Self.temporaryFile(mode: 0o000)
        defer { unlink(path) }
        if geteuid() != 0 {
            do {
                _ = try DrmDevice(path: path)
                Issue.record("opened a mode-000 file")
            } catch {
                #expect(error.description.contains("permission denied on \(path)"))
                #expect(error.description.contains("usermod -aG"))
                #expect(error.description.contains(DrmDevice.userName()))
            }
            return
        }
        let binary = try #require(
            StoreTestSupport.executableExists ? StoreTestSupport.executable : nil,
            "the KioskCards binary is built beside the tests")
        let (status, output) = try TestProcess.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "display-test", "--drm", path])
        #expect(status == 1, "\(output)")
        #expect(output.contains("permission denied on \(path)"), "\(output)")
        #expect(output.contains("usermod -aG video nobody"), "\(output)")
    }
}
