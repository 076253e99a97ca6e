import CEvdev
import CardModel
import KioskTestSupport
import Testing

@testable import KioskInput

@Suite struct InputDecoderTests {
    static let axis = InputFixtures.axis
    static let slotted = InputFixtures.slotted
    static let anonymous = InputFixtures.anonymous

    // MARK: SYN_DROPPED fixtures

    @Test func synDroppedMidDragDiscardsTheBrokenFrameAndCarriesOn() throws {
        let replay = try InputFixtures.replay("syn-dropped-mid-drag.evemu")
        expectWellFormed(replay.frames, screen: TouchReplayOptions.defaultScreen)
        let h = ContactHistory.collect(replay.frames)
        #expect(h.count == 1)
        let xs = try #require(h.first).positions.map { ($0.x - 0.5).rounded() }
        // 160 (before the drop) and 180 (up to the next SYN_REPORT) never appear.
        #expect(xs == [100, 120, 140, 200, 220, 220])
        #expect(h.first?.phases.last == .ended)
        #expect(replay.cancelledAtEnd == 0)
    }

    @Test func synDroppedMidTwoFingerEndsTheLostLiftAtBTNTouchRelease() throws {
        let replay = try InputFixtures.replay("syn-dropped-mid-two-finger.evemu")
        expectWellFormed(replay.frames, screen: TouchReplayOptions.defaultScreen)
        let h = ContactHistory.collect(replay.frames)
        #expect(h.count == 2)
        #expect(h.allSatisfy { $0.phases.last == .ended })
        #expect(replay.cancelledAtEnd == 0)
        // The surviving finger moved on after the drop, without the dropped frame's y=140/150.
        let ys = h[0].positions.map { ($0.y - 0.5).rounded() }
        #expect(ys == [100, 110, 120, 130, 160, 170, 180, 180])
        // Both end in the last frame: the second one's own lift was lost in the drop.
        let last = try #require(replay.frames.last)
        #expect(Set(last.contacts.map(\.phase)) == [.ended] && last.contacts.count == 2)
    }

    @Test func synDroppedThenSlotReuseEndsTheOldContact() throws {
        let replay = try InputFixtures.replay("syn-dropped-slot-reuse.evemu")
        expectWellFormed(replay.frames, screen: TouchReplayOptions.defaultScreen)
        let h = ContactHistory.collect(replay.frames)
        #expect(h.count == 3)
        let reuse = try #require(replay.frames.first { f in f.contacts.contains { $0.phase == .began && $0.id == 3 } })
        #expect(reuse.contacts.contains { $0.id == 2 && $0.phase == .ended })
        #expect(replay.cancelledAtEnd == 0)
    }

    // MARK: Protocol B rules

    @Test func valuesApplyOnlyAtSynReport() {
        var d = TouchDecoder(profile: Self.slotted)
        #expect(d.process(InputEvent(time: .zero, EV_ABS, ABS_MT_TRACKING_ID, 5)) == nil)
        #expect(d.process(InputEvent(time: .zero, EV_ABS, ABS_MT_POSITION_X, 10)) == nil)
        #expect(d.process(InputEvent(time: .zero, EV_ABS, ABS_MT_POSITION_Y, 20)) == nil)
        #expect(d.activeContactCount == 0)
        let f = d.process(InputEvent(time: .seconds(2), EV_SYN, SYN_REPORT, 0))
        #expect(f?.contacts == [DeviceContact(id: 1, position: DevicePoint(x: 10, y: 20), phase: .began)])
        #expect(f?.time == .seconds(2))
    }

    @Test func trackingIDChangeWithoutReleaseEndsOldAndBeginsNew() {
        var s = EventScript()
        s.abs(ABS_MT_TRACKING_ID, 1)
        s.abs(ABS_MT_POSITION_X, 100)
        s.abs(ABS_MT_POSITION_Y, 100)
        s.report()
        s.abs(ABS_MT_TRACKING_ID, 2)  // no −1 in between
        s.abs(ABS_MT_POSITION_X, 500)
        s.report()
        s.abs(ABS_MT_TRACKING_ID, -1)
        s.abs(ABS_MT_TRACKING_ID, 3)  // −1 and a new id in one frame: a tap that was too quick
        s.report()
        var d = TouchDecoder(profile: Self.slotted)
        let frames = s.decode(&d)
        #expect(frames.count == 3)
        #expect(frames[1].contacts.map(\.phase) == [.ended, .began])
        #expect(frames[1].contacts[0].position == DevicePoint(x: 100, y: 100))
        #expect(frames[1].contacts[1].position == DevicePoint(x: 500, y: 100))
        #expect(frames[2].contacts.map(\.id) == [2, 3])
        #expect(frames[2].contacts.map(\.phase) == [.ended, .began])
    }

    @Test func trackingIDWithoutPositionDoesNotTouch() {
        // The Raspberry Pi panel's spurious touches: a tracking id and BTN_TOUCH, no position.
        var s = EventScript()
        s.abs(ABS_MT_TRACKING_ID, 9)
        s.key(BTN_TOUCH, 1)
        s.report()
        s.abs(ABS_MT_TRACKING_ID, -1)
        s.key(BTN_TOUCH, 0)
        s.report()
        var d = TouchDecoder(profile: Self.slotted)
        #expect(s.decode(&d).isEmpty)
    }

    @Test func sameSpotTapAgainIsATouchEvenWithoutNewPosition() {
        // The kernel drops ABS values equal to the slot's last one: a second tap at exactly the
        // same place carries only a tracking id.
        var s = EventScript()
        s.abs(ABS_MT_TRACKING_ID, 1)
        s.abs(ABS_MT_POSITION_X, 300)
        s.abs(ABS_MT_POSITION_Y, 400)
        s.report()
        s.abs(ABS_MT_TRACKING_ID, -1)
        s.report()
        s.abs(ABS_MT_TRACKING_ID, 2)
        s.report()
        var d = TouchDecoder(profile: Self.slotted)
        let frames = s.decode(&d)
        #expect(frames.map { $0.contacts.map(\.phase) } == [[.began], [.ended], [.began]])
        #expect(frames[2].contacts[0].position == DevicePoint(x: 300, y: 400))
    }

    @Test func btnTouchReleaseEndsEveryContact() {
        var s = EventScript()
        for slot: Int32 in 0..<3 {
            s.abs(ABS_MT_SLOT, slot)
            s.abs(ABS_MT_TRACKING_ID, 10 + slot)
            s.abs(ABS_MT_POSITION_X, 100 * (slot + 1))
            s.abs(ABS_MT_POSITION_Y, 100)
        }
        s.key(BTN_TOUCH, 1)
        s.report()
        s.abs(ABS_MT_SLOT, 0)
        s.abs(ABS_MT_TRACKING_ID, -1)  // only slot 0 says so; the others' −1 were lost
        s.key(BTN_TOUCH, 0)
        s.report()
        var d = TouchDecoder(profile: Self.slotted)
        let frames = s.decode(&d)
        #expect(frames.last?.contacts.map(\.phase) == [.ended, .ended, .ended])
        #expect(d.activeContactCount == 0)
    }

    @Test func slotOutOfRangeIsIgnoredNotACrash() {
        var s = EventScript()
        s.abs(ABS_MT_SLOT, 99)
        s.abs(ABS_MT_TRACKING_ID, 1)
        s.abs(ABS_MT_POSITION_X, 1)
        s.abs(ABS_MT_SLOT, -3)
        s.abs(ABS_MT_POSITION_Y, 1)
        s.report()
        var d = TouchDecoder(profile: Self.slotted)
        #expect(s.decode(&d).isEmpty)
    }

    // MARK: ENODEV / cancel

    @Test func deviceRemovedMidDragCancelsOnce() {
        var s = EventScript()
        s.abs(ABS_MT_TRACKING_ID, 1)
        s.abs(ABS_MT_POSITION_X, 100)
        s.abs(ABS_MT_POSITION_Y, 100)
        s.report()
        for x: Int32 in [150, 200, 250] {
            s.abs(ABS_MT_POSITION_X, x)
            s.report()
        }
        s.abs(ABS_MT_POSITION_X, 300)  // unfinished frame when the device went away
        var d = TouchDecoder(profile: Self.slotted)
        _ = s.decode(&d)
        #expect(d.activeContactCount == 1)
        let cancel = d.cancelAll(at: .seconds(9))
        #expect(cancel?.contacts == [DeviceContact(id: 1, position: DevicePoint(x: 250, y: 100), phase: .cancelled)])
        #expect(d.activeContactCount == 0)
        #expect(d.cancelAll(at: .seconds(10)) == nil)
    }

    // MARK: Protocol A

    @Test func protocolAKeepsIDsWhateverTheReportOrder() {
        var s = EventScript()
        var a = (x: Int32(100), y: Int32(100))
        var b = (x: Int32(800), y: Int32(800))
        for i in 0..<10 {
            let order = i % 2 == 0 ? [a, b] : [b, a]  // drivers list contacts in any order
            for p in order {
                s.abs(ABS_MT_POSITION_X, p.x)
                s.abs(ABS_MT_POSITION_Y, p.y)
                s.mtReport()
            }
            s.report()
            a.x += 15
            b.y -= 15
        }
        // a lifts, b stays, c lands far from a in the same frame
        s.abs(ABS_MT_POSITION_X, b.x)
        s.abs(ABS_MT_POSITION_Y, b.y)
        s.mtReport()
        s.abs(ABS_MT_POSITION_X, 900)
        s.abs(ABS_MT_POSITION_Y, 100)
        s.mtReport()
        s.report()
        s.report()  // no reports: everything up
        var d = TouchDecoder(profile: Self.anonymous)
        let frames = s.decode(&d)
        let h = ContactHistory.collect(
            frames.map { TouchMapping(x: Self.axis, y: Self.axis, panel: Size(width: 1001, height: 1001)).map($0) })
        #expect(h.count == 3)
        // Contact 1 only ever moves right, contact 2 only up: no id swapped.
        let xs1 = h[0].positions.map(\.x)
        #expect(zip(xs1, xs1.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(h[0].positions.allSatisfy { abs($0.y - 100.5) < 0.01 })
        #expect(h[1].positions.allSatisfy { abs($0.x - 800.5) < 0.01 })
        let lift = frames[10].contacts
        #expect(lift.map(\.phase) == [.ended, .moved, .began])
        #expect(lift.map(\.id) == [1, 2, 3])
        #expect(frames.last?.contacts.map(\.phase) == [.ended, .ended])
    }

    @Test func protocolASynDroppedDiscardsUpToReport() {
        var s = EventScript()
        s.abs(ABS_MT_POSITION_X, 100)
        s.abs(ABS_MT_POSITION_Y, 100)
        s.mtReport()
        s.report()
        s.dropped()
        s.abs(ABS_MT_POSITION_X, 900)
        s.abs(ABS_MT_POSITION_Y, 900)
        s.mtReport()
        s.report()
        s.abs(ABS_MT_POSITION_X, 110)
        s.abs(ABS_MT_POSITION_Y, 100)
        s.mtReport()
        s.report()
        var d = TouchDecoder(profile: Self.anonymous)
        let frames = s.decode(&d)
        #expect(frames.count == 2)
        #expect(frames[1].contacts == [DeviceContact(id: 1, position: DevicePoint(x: 110, y: 100), phase: .moved)])
    }

    // MARK: Single touch

    @Test(arguments: [ContactSignal.touchButton, .leftButton, .pressure(press: 26, release: 13)])
    func singleTouchFollowsItsSignal(signal: ContactSignal) {
        let profile = TouchProfile(
            touchProtocol: .single(signal), xCode: EvdevCode.absX, yCode: EvdevCode.absY, x: Self.axis, y: Self.axis,
            hasTouchButton: signal == .touchButton)
        func press(_ s: inout EventScript, _ down: Bool, pressure: Int32? = nil) {
            switch signal {
            case .touchButton: s.key(BTN_TOUCH, down ? 1 : 0)
            case .leftButton: s.key(BTN_LEFT, down ? 1 : 0)
            case .pressure: s.abs(ABS_PRESSURE, pressure ?? (down ? 120 : 0))
            }
        }
        var s = EventScript()
        s.abs(ABS_X, 10)
        s.abs(ABS_Y, 10)
        s.report()  // hover: nothing
        press(&s, true)
        s.report()
        s.abs(ABS_X, 20)
        if case .pressure = signal { s.abs(ABS_PRESSURE, 20) }  // between the thresholds: still down
        s.report()
        press(&s, false)
        s.report()
        var d = TouchDecoder(profile: profile)
        let frames = s.decode(&d)
        #expect(frames.map { $0.contacts.map(\.phase) } == [[.began], [.moved], [.ended]])
        #expect(frames[1].contacts[0].position == DevicePoint(x: 20, y: 10))
    }
}
