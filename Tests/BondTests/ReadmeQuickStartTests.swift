import Testing
import Bond

/// The README's "Quick start" block, compiled and run, so the README cannot drift from the code.
@Suite struct ReadmeQuickStartTests {
  @Test func quickStart() {
    var printed: [String] = []
    func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

    // --- README: Quick start ---
    let prices = EventProducer<Int>(replayLength: 1)  // hot, thread-safe, replays the last price
    let bag = DisposeBag()

    prices
      .filter { $0 > 0 }
      .map { $0 * 2 }
      .observe { print("doubled:", $0) }
      .disposeIn(bag)

    prices.next(21)  // prints: doubled: 42

    let captain = Observable("Jim")
    captain.observe { print("Now the captain is \($0).") }  // prints: Now the captain is Jim.
    captain.value = "Spock"  // prints: Now the captain is Spock.

    let email = Observable("")
    let password = Observable("")
    let canLogIn = Observable(false)
    combineLatest(email, password).map { !$0.isEmpty && !$1.isEmpty }.bindTo(canLogIn)
    // --- end ---

    email.value = "kirk@enterprise"
    #expect(canLogIn.value == false)
    password.value = "ncc1701"
    #expect(canLogIn.value == true)
    #expect(printed == ["doubled: 42", "Now the captain is Jim.", "Now the captain is Spock."])
    bag.dispose()
    #expect(prices.observerCount == 0)
  }
}
