import Dispatch
import Foundation
import Testing
@testable import Bond

@Suite struct BridgeTests {
  /// The contract's block, with the semaphore wait replaced by awaiting the consuming task: a
  /// blocking wait would hold one of the few cooperative threads the parallel test run shares.
  @Test func contractBridges() async {
    let name = Notification.Name("MyNotification")
    let posted = Recorder<String>()
    let observation = NotificationCenter.default.bnd_notification(name).observe { posted.add($0.name.rawValue) }
    NotificationCenter.default.post(name: name, object: nil)
    observation.dispose()
    NotificationCenter.default.post(name: name, object: nil)
    #expect(posted.items == ["MyNotification"], "bnd_notification")

    let producer = EventProducer<Int>()
    let stream = producer.values
    let got = Recorder<Int>()
    let consumer = Task.detached {
      for await value in stream {
        got.add(value)
        if value == 3 { break }
      }
    }
    producer.next(1)
    producer.next(2)
    producer.next(3)
    await consumer.value
    #expect(got.items == [1, 2, 3], "values as AsyncStream")
  }

  // MARK: bnd_notification

  @Test func observesTheReceiverNotTheDefaultCenter() {
    let center = NotificationCenter()
    let name = Notification.Name("BridgeTests.receiver")
    let posted = Recorder<String>()
    let observation = center.bnd_notification(name).observe { posted.add($0.name.rawValue) }
    NotificationCenter.default.post(name: name, object: nil)
    #expect(posted.items == [])
    center.post(name: name, object: nil)
    #expect(posted.items == [name.rawValue])
    observation.dispose()
  }

  @Test func filtersBySender() {
    let center = NotificationCenter()
    let name = Notification.Name("BridgeTests.sender")
    let sender = Tracked("sender")
    let stranger = Tracked("stranger")
    let senders = Recorder<String>()
    let observation = center.bnd_notification(name, object: sender).observe { notification in
      senders.add((notification.object as? Tracked)?.name ?? "none")
    }
    center.post(name: name, object: stranger)
    center.post(name: name, object: sender)
    #expect(senders.items == ["sender"])
    observation.dispose()
  }

  @Test func theProducerLivesWhileObservedAndRemovesTheCenterObserverWhenItGoes() {
    let center = NotificationCenter()
    let name = Notification.Name("BridgeTests.lifetime")
    let posted = Recorder<Int>()
    weak var weakProducer: EventProducer<Notification>?
    var first: (any DisposableType)?
    var second: (any DisposableType)?
    do {
      let producer = center.bnd_notification(name)
      weakProducer = producer
      first = producer.observe { _ in posted.add(1) }
      second = producer.observe { _ in posted.add(2) }
    }
    #expect(weakProducer != nil, "alive while observed")
    center.post(name: name, object: nil)
    #expect(posted.items == [1, 2])
    first?.dispose()
    #expect(weakProducer != nil)
    second?.dispose()
    #expect(weakProducer == nil, "gone with its last observation")
    center.post(name: name, object: nil)
    #expect(posted.items == [1, 2])
  }

  @Test func notificationsPostedFromManyThreadsAreAllDelivered() {
    let center = NotificationCenter()
    let name = Notification.Name("BridgeTests.threads")
    let count = Recorder<Int>()
    let observation = center.bnd_notification(name).observe { _ in count.add(1) }
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<100 { center.post(name: name, object: nil) }
    }
    #expect(count.items.count == 400)
    observation.dispose()
  }

  // MARK: values

  @Test func valuesIncludesTheReplayAndEndingTheIterationDisposesTheObservation() async {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(2)
    producer.next(3)
    var got: [Int] = []
    do {
      let stream = producer.values
      #expect(producer.observerCount == 1)
      producer.next(4)
      for await value in stream {
        got.append(value)
        if value == 4 { break }
      }
    }
    #expect(got == [2, 3, 4])
    #expect(producer.observerCount == 0)
  }

  @Test func cancellingTheConsumingTaskDisposesTheObservation() async {
    let producer = EventProducer<Int>()
    let stream = producer.map { $0 * 2 }.values
    let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
    let task = Task.detached {
      var got: [Int] = []
      for await value in stream {
        got.append(value)
        startedContinuation.yield()
      }
      return got
    }
    producer.next(1)
    for await _ in started { break }
    task.cancel()
    let got = await task.value
    #expect(got == [2])
    #expect(producer.observerCount == 0)
  }

  @Test func boundedBufferingKeepsTheNewest() async {
    let producer = EventProducer<Int>(replayLength: 5)
    for value in 1...5 { producer.next(value) }
    var got: [Int] = []
    do {
      let stream = producer.values(bufferingPolicy: .bufferingNewest(2))
      producer.next(6)
      for await value in stream {
        got.append(value)
        if value == 6 { break }
      }
    }
    #expect(got == [5, 6])
    #expect(producer.observerCount == 0)
  }

  @Test func releasingAnUniteratedStreamDisposesTheObservation() {
    let producer = EventProducer<Int>()
    weak var weakCapture: Tracked?
    do {
      let tracked = Tracked()
      weakCapture = tracked
      let stream = producer.map { value -> Int in
        _ = tracked
        return value
      }.values
      producer.next(1)
      #expect(producer.observerCount == 1)
      _ = stream
    }
    #expect(producer.observerCount == 0)
    #expect(weakCapture == nil)
  }
}
