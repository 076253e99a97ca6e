import CardModel
import Glibc
import KioskDisplay

/// The DRM half of `KioskCards probe`: every card node with its driver, capabilities,
/// connectors (status, size in mm, panel orientation, modes), CRTCs and whether vblank events
/// work; plus framebuffer devices. Read-only: does not need (or take) DRM master for the listing;
/// the vblank check works on CRTCs that are already lit.
enum DisplayProbe {
    static func report(drmDirectory: String = "/dev/dri", fbDirectory: String = "/dev") -> String {
        var out: [String] = []
        let cards = DrmDevice.cardPaths(directory: drmDirectory)
        if cards.isEmpty { out.append("DRM: no card nodes in \(drmDirectory)") }
        for path in cards {
            do throws(DisplayError) {
                let device = try DrmDevice(path: path)
                let snapshot = try device.snapshot(probe: true)
                out.append(contentsOf: describe(snapshot))
                for (index, crtc) in snapshot.resources.crtcs.enumerated() where crtc.mode != nil {
                    out.append(
                        "  CRTC \(crtc.id): vblank events \(device.vblankWorks(crtcIndex: index) ? "work" : "do not work (flips complete at once; the app paces by timer)")"
                    )
                }
            } catch {
                out.append("\(path): \(error)")
            }
        }
        for n in 0..<8 {
            let fb = "\(fbDirectory)/fb\(n)"
            guard access(fb, F_OK) == 0 else { continue }
            do throws(DisplayError) {
                let dev = try FramebufferDevice(path: fb)
                out.append(
                    "\(fb): fbdev '\(dev.identifier)' \(dev.width)x\(dev.height) \(dev.format), stride \(dev.stride)"
                        + (dev.widthMM > 0 ? ", \(dev.widthMM)x\(dev.heightMM) mm" : ""))
            } catch {
                out.append("\(fb): \(error)")
            }
        }
        return out.joined(separator: "\n")
    }

    /// A snapshot as lines of text (pure, so the format is tested).
    static func describe(_ s: DrmDeviceSnapshot) -> [String] {
        var out = [
            "\(s.path): driver \(s.driver), dumb buffers \(s.supportsDumbBuffers ? "yes" : "no"), "
                + "monotonic timestamps \(s.monotonicTimestamps ? "yes" : "no")"
        ]
        if s.resources.connectors.isEmpty { out.append("  no connectors (a render-only device)") }
        for c in s.resources.connectors {
            var line = "  connector \(c.name) (id \(c.id)): \(c.connection.rawValue)"
            if c.widthMM > 0 || c.heightMM > 0 { line += ", \(c.widthMM)x\(c.heightMM) mm" }
            if let o = c.panelOrientation {
                line += ", panel orientation \(o.rawValue) (rotation \(o.rotation.rawValue))"
            }
            if c.dpmsPropertyID != nil { line += ", DPMS" }
            out.append(line)
            if !c.modes.isEmpty {
                out.append("    modes: " + c.modes.map(\.description).joined(separator: ", "))
            }
            let crtcs = c.encoderIDs.compactMap { s.resources.encoder($0) }.flatMap { e in
                s.resources.crtcs.enumerated().filter { e.possibleCRTCs & (1 << UInt32($0.offset)) != 0 }.map(
                    \.element.id)
            }
            if !crtcs.isEmpty {
                out.append("    possible CRTCs: " + crtcs.map(String.init).joined(separator: ", "))
            }
        }
        for crtc in s.resources.crtcs {
            out.append(
                "  CRTC \(crtc.id): " + (crtc.mode.map { "on, \($0), framebuffer \(crtc.bufferID)" } ?? "off"))
        }
        return out
    }
}
