#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A damped harmonic oscillator of unit mass, parameterised like SwiftUI's
/// `Spring(response:dampingRatio:)`.
///
/// `response` is the period, in seconds, the spring would have without damping;
/// `dampingFraction` is the damping ratio ζ (below 1 it overshoots, 1 is critical, above 1 is
/// over-damped). The motion is evaluated from the closed-form solution, never by stepping, so it
/// is the same whatever the frame rate.
public struct Spring: Hashable, Sendable {
    /// Seconds; must be positive.
    public var response: Double
    public var dampingFraction: Double

    public init(response: Double = 0.55, dampingFraction: Double = 0.825) {
        self.response = response.isFinite && response > 0 ? response : 0.55
        self.dampingFraction = dampingFraction.isFinite && dampingFraction >= 0 ? dampingFraction : 0.825
    }

    /// SwiftUI's `.spring()`: response 0.55 s, damping fraction 0.825.
    public static let `default` = Spring()

    /// Undamped angular frequency ω₀ in rad/s.
    public var angularFrequency: Double { 2 * Double.pi / response }
    /// k = ω₀² (unit mass).
    public var stiffness: Double { angularFrequency * angularFrequency }
    /// c = 2ζω₀ (unit mass).
    public var damping: Double { 2 * dampingFraction * angularFrequency }

    /// Displacement from the target and velocity `t` seconds after the spring was released
    /// with displacement `x0` and velocity `v0` (x'' = −k·x − c·x').
    public func evaluate(displacement x0: Double, velocity v0: Double, after t: Double) -> (
        displacement: Double, velocity: Double
    ) {
        guard t > 0 else { return (x0, v0) }
        let w0 = angularFrequency
        let zeta = dampingFraction
        if abs(zeta - 1) < 1e-6 {
            // Critically damped: x = (x0 + (v0 + ω₀x0)t)·e^(−ω₀t).
            let b = v0 + w0 * x0
            let e = exp(-w0 * t)
            let x = (x0 + b * t) * e
            let v = (b - w0 * (x0 + b * t)) * e
            return (x, v)
        } else if zeta < 1 {
            // Under-damped: x = e^(−ζω₀t)·(x0·cos ω_d t + (v0 + ζω₀x0)/ω_d · sin ω_d t).
            let wd = w0 * (1 - zeta * zeta).squareRoot()
            let a = x0
            let b = (v0 + zeta * w0 * x0) / wd
            let e = exp(-zeta * w0 * t)
            let c = cos(wd * t)
            let s = sin(wd * t)
            let x = e * (a * c + b * s)
            let v = e * ((b * wd - zeta * w0 * a) * c - (a * wd + zeta * w0 * b) * s)
            return (x, v)
        } else {
            // Over-damped: two real decaying exponentials.
            let root = w0 * (zeta * zeta - 1).squareRoot()
            let r1 = -zeta * w0 + root
            let r2 = -zeta * w0 - root
            let c2 = (v0 - r1 * x0) / (r2 - r1)
            let c1 = x0 - c2
            let e1 = exp(r1 * t)
            let e2 = exp(r2 * t)
            return (c1 * e1 + c2 * e2, c1 * r1 * e1 + c2 * r2 * e2)
        }
    }

    /// A distance-like measure of the oscillator's energy, √(x² + v²/k), in the value's units.
    ///
    /// The energy of a damped oscillator never grows, so once this is below a threshold it stays
    /// there: "at rest" becomes a property of the time alone, not of which frames were drawn.
    public func energyDistance(displacement x: Double, velocity v: Double) -> Double {
        (x * x + v * v / stiffness).squareRoot()
    }
}
