import Testing
@testable import Bond

/// A value that is not Equatable, for the general two-way binding.
private struct Opaque: Sendable {
  let value: Int
  init(_ value: Int) { self.value = value }
}

@Suite struct BindingTests {
  @Test func contractBindings() {
    let source = Observable(1)
    let target = Observable(0)
    let optional = Observable<Int?>(nil)
    source.bindTo(target)
    source.bindTo(optional)
    source.value = 2
    #expect(target.value == 2 && optional.value == 2, "bindTo plain and optional targets")
    do {
      let shortLived = Observable(0)
      source.bindTo(shortLived)
      #expect(source.observerCount == 3, "a binding observes the source")
    }
    #expect(source.observerCount == 2, "a binding ends when its target is deallocated")
    let viaOperator = Observable(0)
    source ->> viaOperator
    #expect(viaOperator.value == 2, "->>")

    final class Label { var text = "" }
    let label = Label()
    source.map { "Hi \($0)" }.bindTo(label, \.text)
    #expect(label.text == "Hi 2", "key-path binding")

    let username = Observable("a")
    let field = Observable("b")
    let fromModel = Recorder<String>()
    let fromField = Recorder<String>()
    username.observe { fromModel.add($0) }
    field.observe { fromField.add($0) }
    username.bidirectionalBindTo(field)
    field.value = "c"
    username.value = "d"
    #expect(fromModel.items == ["a", "c", "d"] && fromField.items == ["b", "a", "c", "d"], "two-way binding, no echo")
    let left = Observable(1)
    let right = Observable(2)
    left ->>< right
    right.value = 3
    #expect(left.value == 3, "->><")
  }

  // MARK: bindTo(_ bindable:)

  @Test func bindsTheReplayThenEveryEventIntoAProducer() {
    let source = EventProducer<Int>(replayLength: 1)
    source.next(1)
    let target = EventProducer<Int>()
    let seen = Recorder<Int>()
    target.observe { seen.add($0) }
    let binding = source.map { $0 * 10 }.bindTo(target)
    source.next(2)
    #expect(seen.items == [10, 20])
    binding.dispose()
    source.next(3)
    #expect(seen.items == [10, 20])
    #expect(source.observerCount == 0)
  }

  @Test func bindsIntoAnOptionalTarget() {
    let source = EventProducer<String>()
    let target = Observable<String?>(nil)
    let binding = source ->> target
    source.next("x")
    #expect(target.value == "x")
    binding.dispose()
    #expect(source.observerCount == 0)
  }

  @Test func theTargetIsHeldWeaklyAndEndsTheBinding() {
    let source = EventProducer<Int>()
    weak var weakTarget: Observable<Int>?
    weak var weakOptionalTarget: EventProducer<Int?>?
    do {
      let target = Observable(0)
      let optionalTarget = EventProducer<Int?>()
      weakTarget = target
      weakOptionalTarget = optionalTarget
      source.bindTo(target)
      source.bindTo(optionalTarget)
      #expect(source.observerCount == 2)
    }
    #expect(weakTarget == nil && weakOptionalTarget == nil)
    #expect(source.observerCount == 0)
    source.next(1)
  }

  @Test func aBindingDoesNotKeepTheSourceAlive() {
    weak var weakSource: Observable<Int>?
    let target = Observable(0)
    do {
      let source = Observable(5)
      weakSource = source
      source.map { $0 + 1 }.bindTo(target)
    }
    #expect(weakSource == nil)
    #expect(target.value == 6)
  }

  // MARK: bindTo(_ object:, _ keyPath:)

  @Test func keyPathBindingEndsAtTheFirstEventAfterTheObjectIsGone() {
    final class Label {
      var text = ""
      var detail: String?
    }
    let source = Observable("a")
    weak var weakLabel: Label?
    do {
      let label = Label()
      weakLabel = label
      source.bindTo(label, \.text)
      source.bindTo(label, \.detail)
      #expect(label.text == "a" && label.detail == "a")
      source.value = "b"
      #expect(label.text == "b" && label.detail == "b")
      #expect(source.observerCount == 2)
    }
    #expect(weakLabel == nil, "the object is held weakly")
    #expect(source.observerCount == 2)
    source.value = "c"
    #expect(source.observerCount == 0, "ended at the first event after the object went")
  }

  @Test func keyPathBindingCanBeDisposed() {
    final class Model { var count = 0 }
    let model = Model()
    let source = EventProducer<Int>()
    let binding = source.bindTo(model, \.count)
    source.next(1)
    binding.dispose()
    source.next(2)
    #expect(model.count == 1)
    #expect(source.observerCount == 0)
  }

  // MARK: bidirectionalBindTo

  @Test func twoWayBindingOfNonEquatableValuesHasNoEcho() {
    let a = Observable(Opaque(1))
    let b = Observable(Opaque(2))
    let fromA = Recorder<Int>()
    let fromB = Recorder<Int>()
    let observeA = a.observe { fromA.add($0.value) }
    let observeB = b.observe { fromB.add($0.value) }
    let binding = a.bidirectionalBindTo(b)
    b.value = Opaque(3)
    a.value = Opaque(4)
    #expect(fromA.items == [1, 3, 4])
    #expect(fromB.items == [2, 1, 3, 4])
    binding.dispose()
    a.value = Opaque(5)
    #expect(b.value.value == 4)
    observeA.dispose()
    observeB.dispose()
    #expect(a.observerCount == 0 && b.observerCount == 0)
  }

  @Test func aChangeMadeWhileReceivingTheBoundValueGoesBack() {
    // `b`'s own observer answers 10 with 11, inside the delivery the binding started.
    let a = Observable(Opaque(0))
    let b = Observable(Opaque(0))
    let answer = b.observe { if $0.value == 10 { b.value = Opaque(11) } }
    a ->>< b
    a.value = Opaque(10)
    #expect(a.value.value == 11 && b.value.value == 11)

    let c = Observable(0)
    let d = Observable(0)
    let answerD = d.observe { if $0 == 10 { d.value = 11 } }
    c ->>< d
    c.value = 10
    #expect(c.value == 11 && d.value == 11)
    answer.dispose()
    answerD.dispose()
  }

  @Test func equalValuesAreNotForwarded() {
    let a = Observable(1)
    let b = Observable(1)
    let fromB = Recorder<Int>()
    b.observe { fromB.add($0) }
    a.bidirectionalBindTo(b)
    a.value = 1
    a.value = 2
    a.value = 2
    #expect(fromB.items == [1, 2], "b already had 1, and 2 once is enough")
  }

  @Test func cyclesOfEquatableBindingsSettle() {
    let a = Observable(1)
    let b = Observable(2)
    let c = Observable(3)
    let counts = Recorder<String>()
    a.observeNew { counts.add("a\($0)") }
    b.observeNew { counts.add("b\($0)") }
    c.observeNew { counts.add("c\($0)") }
    a ->>< b
    b ->>< c
    c ->>< a
    #expect(a.value == 1 && b.value == 1 && c.value == 1)
    for (changed, value) in [(a, 5), (b, 6), (c, 7), (a, 8)] {
      let before = counts.items.count
      changed.value = value
      #expect(a.value == value && b.value == value && c.value == value)
      let delivered = counts.items.dropFirst(before)
      // Each other producer delivers the value once; the one that changed may get it once more,
      // from round the cycle (its own delivery was in progress when the value came back); no more.
      #expect(delivered.count >= 3 && delivered.count <= 4, "\(Array(delivered))")
      #expect(delivered.allSatisfy { $0.hasSuffix("\(value)") })
    }
  }

  @Test func aTwoWayBindingEndsWhenEitherSideIsDeallocated() {
    let model = Observable("model")
    weak var weakField: Observable<String>?
    do {
      let field = Observable("field")
      weakField = field
      model.bidirectionalBindTo(field)
      #expect(field.value == "model")
      field.value = "typed"
      #expect(model.value == "typed")
      #expect(model.observerCount == 1 && field.observerCount == 1)
    }
    #expect(weakField == nil)
    #expect(model.observerCount == 0)

    let field = Observable("field")
    weak var weakModel: Observable<String>?
    do {
      let model = Observable("model")
      weakModel = model
      model ->>< field
    }
    #expect(weakModel == nil)
    #expect(field.observerCount == 0)
  }

  @Test func disposingATwoWayBindingEndsBothDirections() {
    let a = Observable(Opaque(1))
    let b = Observable(Opaque(2))
    let binding = a ->>< b
    binding.dispose()
    a.value = Opaque(3)
    b.value = Opaque(4)
    #expect(a.value.value == 3 && b.value.value == 4)
    #expect(a.observerCount == 0 && b.observerCount == 0)
  }

  // MARK: Operators

  @Test func bindingOperatorsBindLooserThanNilCoalescingAndTighterThanAssignment() {
    let preferred: Observable<Int>? = nil
    let fallback = Observable(7)
    let target = Observable(0)
    let binding = preferred ?? fallback ->> target
    #expect(target.value == 7)
    binding.dispose()
    #expect(fallback.observerCount == 0)

    let left = Observable(1)
    let right = Observable(2)
    let twoWay: any DisposableType = left.map { $0 }.share(replayLength: 1) ->> right
    #expect(right.value == 1)
    twoWay.dispose()
  }
}
