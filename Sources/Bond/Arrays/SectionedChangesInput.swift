/// What a ``SectionedChangesSink`` receives, serialized through its private producer.
@usableFromInline
enum SectionedChangesInput<Row> {
  /// An event of the outer array (sections).
  case outer(ObservableArrayEvent<ObservableArray<Row>>)
  /// An event of the inner array subscribed as `id`.
  case inner(id: Int, ObservableArrayEvent<Row>)
  /// The outer array's registration is complete (after its replay).
  case registered
}
