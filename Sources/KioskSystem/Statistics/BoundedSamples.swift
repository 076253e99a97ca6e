/// The most recent `capacity` samples, for percentiles over a long run in bounded memory.
package struct BoundedSamples {
    package let capacity: Int
    private var values: [Double] = []
    private var next = 0

    package init(capacity: Int) { self.capacity = max(1, capacity) }

    package var count: Int { values.count }
    package var maximum: Double? { values.max() }
    package var minimum: Double? { values.min() }
    package var sum: Double? { values.isEmpty ? nil : values.reduce(0, +) }

    package mutating func append(_ v: Double) {
        if values.count < capacity {
            values.append(v)
        } else {
            values[next] = v
            next = (next + 1) % capacity
        }
    }

    /// The nearest-rank percentile `p` (0…100) of the samples (`percentile(_:of:)`); nil
    /// without samples.
    package func percentile(_ p: Double) -> Double? {
        KioskSystem.percentile(p, of: values)
    }
}
