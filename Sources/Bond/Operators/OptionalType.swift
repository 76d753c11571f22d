/// A type that is an `Optional`: lets operators such as ``EventProducerType/ignoreNil()``
/// constrain a producer's events to optionals.
///
/// Only `Optional` conforms; do not conform other types.
public protocol OptionalType<Wrapped> {
  /// The type of the wrapped value.
  associatedtype Wrapped
  /// The value as an `Optional`.
  var optional: Wrapped? { get }
}

extension Optional: OptionalType {
  /// `self`.
  @inlinable
  public var optional: Wrapped? { self }
}
