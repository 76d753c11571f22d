import Testing

@testable import Bond

/// `groupBy(maxGroups:_:)` (CONTRACT.md, "More of the vocabulary", rule 4).
@Suite struct GroupByTests {
  @Test func oneGroupPerKeyWithEveryEventOfItsKey() {
    let words = EventProducer<String>()
    let log = Recorder<String>()
    words.groupBy { $0.first! }.observe { group in
      log.add("group \(group.key)")
      group.events.observe { log.add("\(group.key):\($0)") }
    }
    for word in ["apple", "berry", "avocado"] { words.next(word) }
    #expect(log.items == ["group a", "a:apple", "group b", "b:berry", "a:avocado"])
  }

  @Test func maxGroupsEndsTheGroupIdleLongest() {
    let numbers = EventProducer<Int>()
    let log = Recorder<String>()
    numbers.groupBy(maxGroups: 2) { $0 % 10 }.observe { group in
      group.events.observe {
        log.add("\(group.key):\($0)")
      } finished: {
        log.add("\(group.key):end")
      }
    }
    numbers.next(1)
    numbers.next(2)
    numbers.next(11)  // 1 is now the most recent
    numbers.next(3)  // ends 2's group, idle longest
    numbers.next(12)  // a new group of 2, ending 1's
    #expect(log.items == ["1:1", "2:2", "1:11", "2:end", "3:3", "1:end", "2:12"])
  }

  @Test func everyGroupEndsWithTheUpstream() {
    let numbers = EventProducer<Int>()
    let log = Recorder<String>()
    numbers.groupBy { $0 % 2 }.observe { group in
      group.events.observe { _ in
      } finished: {
        log.add("group \(group.key) end")
      }
    } finished: {
      log.add("end")
    }
    numbers.next(1)
    numbers.next(2)
    numbers.finish()
    #expect(Set(log.items.prefix(2)) == ["group 1 end", "group 0 end"])
    #expect(log.items.last == "end" && log.items.count == 3)
  }

  @Test func disposingEndsTheGroupsButNotTheOuterObserver() {
    let numbers = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = numbers.groupBy { $0 % 2 }.observe { group in
      group.events.observe {
        log.add("\($0)")
      } finished: {
        log.add("group \(group.key) end")
      }
    } finished: {
      log.add("end")
    }
    numbers.next(1)
    observation.dispose()
    numbers.next(3)
    #expect(log.items == ["1", "group 1 end"])
    #expect(numbers.observerCount == 0)
  }

  @Test func replayedEventsAreGrouped() {
    let value = Observable(4)
    let log = Recorder<String>()
    value.groupBy { $0 }.observe { group in
      group.events.observe { log.add("\(group.key):\($0)") }
    }
    value.value = 4
    #expect(log.items == ["4:4", "4:4"])
  }

  @Test func stateMachineEvictsTheLeastRecent() {
    var machine = GroupByStateMachine<Int, String>(maxGroups: 2)
    guard case .newGroup("a", evicted: nil) = machine.received(1, make: { "a" }) else {
      Issue.record("a")
      return
    }
    guard case .newGroup("b", evicted: nil) = machine.received(2, make: { "b" }) else {
      Issue.record("b")
      return
    }
    guard case .send("a") = machine.received(1, make: { "x" }) else {
      Issue.record("send")
      return
    }
    guard case .newGroup("c", evicted: "b") = machine.received(3, make: { "c" }) else {
      Issue.record("c")
      return
    }
    guard case .endGroups(let groups) = machine.ended() else {
      Issue.record("the end ends the open groups")
      return
    }
    #expect(Set(groups) == ["a", "c"])
    guard case .ignore = machine.ended() else {
      Issue.record("a second end does nothing")
      return
    }
    guard case .ignore = machine.received(1, make: { "y" }) else {
      Issue.record("ignore")
      return
    }
  }

  @Test func maxGroupsBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().groupBy(maxGroups: 0) { $0 }
    }
    #expect(exitTestStandardError(result).contains("groupBy(maxGroups:_:): maxGroups must be at least 1, got 0"))
  }
}

extension GroupByTests {
  @Test func manyEvictionsLoseNothing() {
    let numbers = EventProducer<Int>()
    let received = Recorder<Int>()
    let ends = Recorder<Int>()
    var groups = 0
    numbers.groupBy(maxGroups: 3) { $0 % 10 }.observe { group in
      groups += 1
      group.events.observe {
        received.add($0)
      } finished: {
        ends.add(group.key)
      }
    } finished: {
      ends.add(-1)
    }
    for value in 0..<2_000 { numbers.next(value) }
    numbers.finish()
    #expect(received.items == Array(0..<2_000))
    #expect(ends.items.count == groups + 1 && ends.items.last == -1)
  }
}
