import Testing

@testable import CardModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct SpringTests {
    @Test func defaultIsSwiftUISpring() {
        let s = Spring.default
        #expect(s.response == 0.55)
        #expect(s.dampingFraction == 0.825)
        expectClose(s.stiffness, pow(2 * Double.pi / 0.55, 2))
        expectClose(s.damping, 4 * Double.pi * 0.825 / 0.55)
    }

    /// x'' = −k·x − c·x' integrated by RK4 with a 10 µs step.
    func integrate(_ s: Spring, x0: Double, v0: Double, until t: Double) -> (Double, Double) {
        let k = s.stiffness
        let c = s.damping
        var x = x0
        var v = v0
        let h = 1e-5
        let steps = Int((t / h).rounded())
        func a(_ x: Double, _ v: Double) -> Double { -k * x - c * v }
        for _ in 0..<steps {
            let k1x = v
            let k1v = a(x, v)
            let k2x = v + h / 2 * k1v
            let k2v = a(x + h / 2 * k1x, v + h / 2 * k1v)
            let k3x = v + h / 2 * k2v
            let k3v = a(x + h / 2 * k2x, v + h / 2 * k2v)
            let k4x = v + h * k3v
            let k4v = a(x + h * k3x, v + h * k3v)
            x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
            v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        }
        return (x, v)
    }

    @Test(arguments: [0.3, 0.825, 1.0, 1.6, 4.0])
    func closedFormMatchesIntegration(dampingFraction: Double) {
        let s = Spring(response: 0.55, dampingFraction: dampingFraction)
        for (x0, v0) in [(100.0, 0.0), (-40.0, 900.0), (0.0, -1500.0)] {
            for t in [0.016, 0.1, 0.25, 0.6, 1.3] {
                let exact = s.evaluate(displacement: x0, velocity: v0, after: t)
                let (x, v) = integrate(s, x0: x0, v0: v0, until: t)
                expectClose(exact.displacement, x, within: 1e-6, "x ζ=\(dampingFraction) t=\(t)")
                expectClose(exact.velocity, v, within: 1e-5, "v ζ=\(dampingFraction) t=\(t)")
            }
        }
    }

    @Test func underDampedOvershootsCriticalAndOverDampedDoNot() {
        func minimum(_ zeta: Double) -> Double {
            let s = Spring(response: 0.55, dampingFraction: zeta)
            return stride(from: 0.0, through: 3, by: 0.001).map {
                s.evaluate(displacement: 100, velocity: 0, after: $0).displacement
            }.min()!
        }
        #expect(minimum(0.825) < -0.1)
        #expect(minimum(1.0) >= 0)
        #expect(minimum(2.0) >= 0)
    }

    @Test func energyNeverGrows() {
        for zeta in [0.2, 0.825, 1, 3] {
            let s = Spring(response: 0.4, dampingFraction: zeta)
            var previous = Double.infinity
            for t in stride(from: 0.0, through: 2, by: 0.002) {
                let st = s.evaluate(displacement: 50, velocity: -700, after: t)
                let e = s.energyDistance(displacement: st.displacement, velocity: st.velocity)
                #expect(e <= previous + 1e-12)
                previous = e
            }
        }
    }

    @Test func comesToRestExactlyOnTarget() {
        var a = AnimatedValue(0)
        a.animate(to: 100, at: .seconds(1))
        #expect(a.isMoving(at: .seconds(1.1)))
        #expect(a.value(at: .seconds(1.1)) > 0 && a.value(at: .seconds(1.1)) < 100)
        let rest = Instant.seconds(4)
        #expect(!a.isMoving(at: rest))
        #expect(a.value(at: rest) == 100)
        #expect(a.velocity(at: rest) == 0)
        // Once at rest it stays at rest, whichever instants are asked about.
        var atRest = false
        for ms in stride(from: 1000.0, through: 4000, by: 1) {
            let moving = a.isMoving(at: .milliseconds(ms))
            #expect(!(atRest && moving))
            atRest = atRest || !moving
        }
    }

    @Test func retargetKeepsPositionAndVelocity() {
        var a = AnimatedValue(0)
        a.animate(to: 100, at: .seconds(0))
        let t = Instant.seconds(0.2)
        let before = (a.value(at: t), a.velocity(at: t))
        #expect(before.1 > 100)
        a.animate(to: -50, at: t)
        expectClose(a.value(at: t), before.0)
        expectClose(a.velocity(at: t), before.1)
        // And it is continuous just after: a millisecond moves it by about v·1 ms.
        let next = a.value(at: t.advanced(bySeconds: 0.001))
        expectClose(next, before.0 + before.1 * 0.001, within: 0.05)
        #expect(a.target == -50)
        #expect(a.value(at: .seconds(5)) == -50)
    }

    @Test func displaceKeepsVelocityAndTarget() {
        var a = AnimatedValue(3, restDistance: 0.001)
        a.animate(to: 2, at: .zero)
        let t = Instant.seconds(0.1)
        let v = a.velocity(at: t)
        let x = a.value(at: t)
        a.displace(by: 1, at: t)
        expectClose(a.value(at: t), x + 1)
        expectClose(a.velocity(at: t), v)
        #expect(a.target == 2)
    }

    @Test(arguments: [30, 60, 144])
    func sameMotionAtAnyFrameRate(hz: Int) {
        // Reading the value on every frame changes nothing: compare with a value never read.
        var stepped = AnimatedValue(0)
        stepped.animate(to: 300, at: .zero, velocity: -2000)
        let untouched = stepped
        for k in 0...(2 * hz) {
            let t = Instant(nanoseconds: Int64(k) * 1_000_000_000 / Int64(hz))
            stepped.settle(at: t)
            #expect(stepped.value(at: t) == untouched.value(at: t))
        }
    }

    @Test func flingDecaysExponentiallyAndStops() {
        let f = Fling(from: 100, velocity: 2000, at: .seconds(1))
        let tau = Fling.uiScrollViewTimeConstant
        expectClose(tau, 0.4995, within: 0.001)
        expectClose(f.velocity(at: .seconds(1 + tau)), 2000 / M_E, within: 1e-6)
        expectClose(f.value(at: .seconds(1 + tau)), 100 + 2000 * tau * (1 - 1 / M_E), within: 1e-6)
        #expect(!f.isMoving(at: f.end))
        // Stops about half a point short of the limit x0 + v0·τ, and stays there.
        let limit = 100 + 2000 * tau
        #expect(f.value(at: f.end) < limit && f.value(at: f.end) > limit - 1)
        #expect(f.value(at: .seconds(100)) == f.value(at: f.end))
        let hit = try! #require(f.time(reaching: 600))
        expectClose(f.value(at: hit), 600, within: 1e-6)
        #expect(f.time(reaching: limit + 1) == nil)
    }

    @Test func rubberBandResistsAndInverts() {
        let d = 400.0
        // Slope 0.55 at the edge, never reaching the viewport length.
        expectClose(RubberBand.distance(1, dimension: d), 0.55, within: 0.001)
        #expect(RubberBand.distance(10_000, dimension: d) < d)
        #expect(RubberBand.distance(200, dimension: d) < 110)
        let shown = RubberBand.clamp(-150, lower: 0, upper: 1000, dimension: d)
        #expect(shown > -150 && shown < 0)
        expectClose(RubberBand.unclamp(shown, lower: 0, upper: 1000, dimension: d), -150, within: 1e-6)
        #expect(RubberBand.clamp(500, lower: 0, upper: 1000, dimension: d) == 500)
    }
}
