import Testing
@testable import Bond

@Suite struct ObservableTests {
  @Test func observeGetsTheCurrentValueThenNewOnes() {
    let captain = Observable("Jim")
    captain.next("Spock")
    #expect(captain.value == "Spock")
    #expect(captain.replayLength == 1)
    let said = Recorder<String>()
    let observation = captain.observe { said.add("Now the captain is \($0).") }
    captain.value = "Scotty"
    #expect(said.items == ["Now the captain is Spock.", "Now the captain is Scotty."])
    #expect(captain.observerCount == 1)
    observation.dispose()
    #expect(captain.observerCount == 0)
  }

  @Test func valueSetFromInsideAnObserverIsVisibleAtOnce() {
    let number = Observable(0)
    var readBack: [Int] = []
    let observation = number.observe { value in
      if value == 1 {
        number.value = 2
        readBack.append(number.value)
      }
    }
    number.value = 1
    #expect(readBack == [2])
    #expect(number.value == 2)
    observation.dispose()
  }

  @Test func sinkSetsTheValueAndEndsWithTheObservable() {
    let disconnected = Recorder<Int>()
    var number: Observable<Int>? = Observable(0)
    let sink = number!.sink(BlockDisposable { disconnected.add(1) })
    sink(3)
    #expect(number!.value == 3)
    number = nil
    #expect(disconnected.items == [1])
    sink(4)
  }
}
