// The README examples story: the code of every block of Sources/Bond/Bond.docc/ReadmeExamples.md,
// compiled and run; `print` is captured so the `// prints:` comments are checked. Keep both files in
// sync.
import Foundation
import Testing
import Bond

/// What the examples print, in order (`print` below shadows the standard library's in this file).
private let console = Console()

private final class Console: @unchecked Sendable {
  // @unchecked: `lines` is only touched under `lock`.
  private let lock = NSLock()
  private var lines: [String] = []
  func add(_ line: String) {
    lock.lock()
    lines.append(line)
    lock.unlock()
  }
  func take() -> [String] {
    lock.lock()
    defer {
      lines = []
      lock.unlock()
    }
    return lines
  }
}

private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
  console.add(items.map { "\($0)" }.joined(separator: separator))
}

/// Stand-ins for the UIKit views and the view model of the Bond v4 README.
private final class TextField {
  let text: Observable<String>
  init(text: String = "") { self.text = Observable(text) }
}
private final class Label { var text = "" }
private enum ControlEvent { case touchDown, touchUpInside }
private final class Button { let controlEvent = EventProducer<ControlEvent>() }
private final class ViewModel {
  let numberOfFollowers = Observable(0)
  let username = Observable("")
  let name = Observable("Jim")
}

@Suite(.serialized) struct ReadmeExamplesTests {
  /// What can it do?
  @Test func whatCanItDo() {
    _ = console.take()
    let textField = TextField(text: "Jim")
    let label = Label()

    textField.text
      .observe { text in
        print(text)
      }
    // prints: Jim (the current text, at once)

    textField.text
      .map { "Hi " + $0 }
      .bindTo(label, \.text)

    textField.text.value = "Spock"  // prints: Spock
    print(label.text)  // prints: Hi Spock
    #expect(console.take() == ["Jim", "Spock", "Hi Spock"])
  }

  /// Filter
  @Test func filter() {
    _ = console.take()
    let button = Button()

    button.controlEvent
      .filter { $0 == .touchUpInside }
      .observe { _ in
        print("Button tapped.")
      }

    button.controlEvent.next(.touchDown)  // prints nothing
    button.controlEvent.next(.touchUpInside)  // prints: Button tapped.
    #expect(console.take() == ["Button tapped."])
  }

  /// Binding a model to a view
  @Test func modelToView() {
    _ = console.take()
    let viewModel = ViewModel()
    let followersLabel = Label()

    viewModel.numberOfFollowers
      .map { "\($0)" }
      .bindTo(followersLabel, \.text)

    viewModel.numberOfFollowers.value = 42
    print(followersLabel.text)  // prints: 42
    #expect(console.take() == ["42"])
  }

  /// Two-way bindings
  @Test func twoWayBinding() {
    _ = console.take()
    let viewModel = ViewModel()
    let usernameTextField = TextField()
    viewModel.username.value = "kirk"

    viewModel.username.bidirectionalBindTo(usernameTextField.text)
    print(usernameTextField.text.value)  // prints: kirk (the view model's value goes first)

    usernameTextField.text.value = "spock"  // the user types
    print(viewModel.username.value)  // prints: spock
    #expect(console.take() == ["kirk", "spock"])
  }

  /// The Observable
  @Test func observable() {
    _ = console.take()
    let captain = Observable("Jim")
    captain.next("Spock")
    print(captain.value)  // prints: Spock

    captain.observe { name in
      print("Now the captain is \(name).")
    }
    // prints: Now the captain is Spock.

    captain.next("Scotty")  // prints: Now the captain is Scotty.
    captain.value = "Uhura"  // prints: Now the captain is Uhura.

    captain.observeNew { name in
      print("New captain: \(name).")
    }
    captain.value = "Sulu"
    // prints: Now the captain is Sulu.
    // prints: New captain: Sulu.
    #expect(
      console.take() == [
        "Spock", "Now the captain is Spock.", "Now the captain is Scotty.", "Now the captain is Uhura.",
        "Now the captain is Sulu.", "New captain: Sulu.",
      ]
    )
  }

  /// The event producer
  @Test func eventProducer() {
    _ = console.take()
    let subscription = EventProducer<String>(replayLength: 1) { sink in
      sink("Hello")
      return BlockDisposable { print("greetings disposed") }
    }
    .observe { greeting in
      print(greeting)
    }
    // prints: Hello (the replay)

    subscription.dispose()
    // prints: greetings disposed (nothing else held the producer)
    #expect(console.take() == ["Hello", "greetings disposed"])
  }

  /// Transforming event producers
  @Test func transforming() {
    _ = console.take()
    let numbers = EventProducer<Int>()

    numbers
      .filter { $0 > 0 }
      .map { $0 * 2 }
      .distinct()
      .observe { print($0) }

    numbers.next(-1)
    numbers.next(1)
    numbers.next(1)
    numbers.next(2)
    // prints: 2
    // prints: 4
    #expect(console.take() == ["2", "4"])
  }

  /// Bindings
  @Test func bindings() {
    _ = console.take()
    let captainName = Observable("Kirk")
    let nameLabelText = Observable("")

    captainName.observe { name in
      nameLabelText.next(name)
    }
    captainName.next("Janeway")
    print(nameLabelText.value)  // prints: Janeway

    let otherLabelText = Observable("")
    captainName.bindTo(otherLabelText)  // the same, in one line
    captainName ->> otherLabelText  // and as an operator
    print(otherLabelText.value)  // prints: Janeway
    #expect(console.take() == ["Janeway", "Janeway"])
  }

  /// Dispose bags
  @Test func disposeBag() {
    _ = console.take()
    final class MyViewController {
      let bag = DisposeBag()
      let nameLabel = Label()

      init(viewModel: ViewModel) {
        viewModel.name
          .observe { name in
            print(name)
          }
          .disposeIn(bag)

        viewModel.name.bindTo(nameLabel, \.text)  // ends by itself once the label is gone
      }
    }

    let viewModel = ViewModel()
    do {
      let controller = MyViewController(viewModel: viewModel)  // prints: Jim
      viewModel.name.value = "Spock"  // prints: Spock
      print(controller.nameLabel.text)  // prints: Spock
    }
    viewModel.name.value = "Scotty"  // prints nothing: the controller's bag disposed the observation
    print(viewModel.name.observerCount)  // prints: 0 (the label binding ended at that event)
    #expect(console.take() == ["Jim", "Spock", "Spock", "0"])
  }

  /// Notification center
  @Test func notificationCenter() {
    _ = console.take()
    let bag = DisposeBag()
    let name = Notification.Name("ReadmeNotification")

    NotificationCenter.default.bnd_notification(name)
      .observe { notification in
        print("Got \(notification.name.rawValue)")
      }
      .disposeIn(bag)

    NotificationCenter.default.post(name: name, object: nil)  // prints: Got ReadmeNotification
    bag.dispose()
    NotificationCenter.default.post(name: name, object: nil)  // prints nothing
    #expect(console.take() == ["Got ReadmeNotification"])
  }

  /// Binding only new values
  @Test func skipTheReplay() {
    _ = console.take()
    let name = Observable("Jim")
    let nameLabel = Label()

    name.skip(name.replayLength).bindTo(nameLabel, \.text)
    print(nameLabel.text.isEmpty)  // prints: true (the current value was skipped)

    name.value = "Spock"
    print(nameLabel.text)  // prints: Spock
    #expect(console.take() == ["true", "Spock"])
  }
}
