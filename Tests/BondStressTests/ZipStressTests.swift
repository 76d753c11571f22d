import Foundation
import Testing
@testable import Bond

/// zip and withLatestFrom with their sources sending from different threads: no event lost or
/// duplicated, pairs in order, one end. Run under
/// `swift test --sanitize=thread --filter ZipStressTests`.
@Suite struct ZipStressTests {
  static let count = 20_000

  @Test func zipAcrossThreads() {
    withWatchdog("zipAcrossThreads", seconds: 120) {
      for _ in 0..<5 {
        let a = EventProducer<Int>()
        let b = EventProducer<Int>()
        let pairs = Recorder<(Int, Int)>()
        let ends = Recorder<Int>()
        a.zipWith(b).observe {
          pairs.add($0)
        } finished: {
          ends.add(0)
        }
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
          for value in 0..<Self.count { a.next(value) }
          a.finish()
        }
        DispatchQueue.global().async(group: group) {
          for value in 0..<Self.count { b.next(-value) }
        }
        group.wait()
        // The end may still be on its way (a worker delivers what a call handed off).
        waitUntil { !ends.items.isEmpty }
        let items = pairs.items
        #expect(items.count == Self.count)
        #expect(items.enumerated().allSatisfy { $0.element.0 == $0.offset && $0.element.1 == -$0.offset })
        #expect(ends.items.count == 1)
      }
    }
  }

  @Test func withLatestFromAcrossThreads() {
    withWatchdog("withLatestFromAcrossThreads", seconds: 120) {
      for _ in 0..<5 {
        let clicks = EventProducer<Int>()
        let text = EventProducer<Int>()
        let pairs = Recorder<(Int, Int)>()
        let ends = Recorder<Int>()
        clicks.withLatestFrom(text).observe {
          pairs.add($0)
        } finished: {
          ends.add(0)
        }
        text.next(0)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
          for value in 0..<Self.count { clicks.next(value) }
          clicks.finish()
        }
        DispatchQueue.global().async(group: group) {
          for value in 1..<Self.count { text.next(value) }
        }
        group.wait()
        // The end may still be on its way (a worker delivers what a call handed off).
        waitUntil { !ends.items.isEmpty }
        let items = pairs.items
        #expect(items.map(\.0) == Array(0..<Self.count))
        #expect(zip(items, items.dropFirst()).allSatisfy { $0.1 <= $1.1 })
        #expect(ends.items.count == 1)
      }
    }
  }
}
