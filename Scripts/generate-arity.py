#!/usr/bin/env python3
"""Generates the fixed-arity entry points of Bond's N-ary operators (combineLatest, and zip later).

Each operator has one N-ary core (`CombineLatest<Event>` over an array of sources); the overloads
for 2 to 10 producers are one-line, non-variadic entry points into it (see "The entry points" in
`Sources/Bond/Operators/CombineLatest/CombineLatest.swift` for why they are not one variadic
function). They are written by this script, never by hand:

    python3 Scripts/generate-arity.py          # rewrites the generated files
    Scripts/check-generated                    # CI: fails if they are not up to date

To generate another operator's overloads (e.g. `zip`), add an `Operator` to `OPERATORS`.
"""
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]


@dataclass
class Operator:
  function: str  # the free function, e.g. `combineLatest`
  result: str  # the N-ary core type, generic over the tuple of events, e.g. `CombineLatest`
  source: str  # the type that wraps one upstream, e.g. `CombineLatestSource`
  output: str  # the generated file, relative to the repository root
  summary_two: str  # the first line of the doc comment for 2 producers
  summary_n: str  # the first line for n producers; `{n}` is replaced
  discussion_two: str  # the rest of the doc comment for 2 producers (without the `///`)
  discussion_n: str  # the rest for n producers
  example: str = ""  # a code example for 2 producers (doc comment lines, without `///`)
  arities: range = range(2, 11)


OPERATORS = [
  Operator(
    function="combineLatest",
    result="CombineLatest",
    source="CombineLatestSource",
    output="Sources/Bond/Operators/CombineLatest/CombineLatest+Arity.swift",
    summary_two="Combines the latest events of two producers (of any types) into pairs.",
    summary_n="Combines the latest events of {n} producers (of any types) into flat tuples.",
    example="""```swift
let email = Observable(""), pass = Observable("")
combineLatest(email, pass)
  .map { email, pass in !email.isEmpty && !pass.isEmpty }
  .observe { print("enabled: \\($0)") }      // prints "enabled: false"
```""",
    discussion_two="""Nothing is delivered until both have sent; then each event of either delivers one pair of the
latest event of each. It ends when both have ended, or at once when one ends without having sent.
Overloads take 3 to 10 producers and deliver flat tuples, and ``combineLatest(_:)`` takes more.
See ``CombineLatest``.""",
    discussion_n="""Nothing is delivered until every producer has sent; then each event of any of them delivers one
tuple of the latest event of each. It ends when every producer has ended, or at once when one ends
without having sent. See ``CombineLatest``.""",
  ),
  Operator(
    function="zip",
    result="Zip",
    source="CombineLatestSource",
    output="Sources/Bond/Operators/Zip/Zip+Arity.swift",
    summary_two="Pairs the n-th events of two producers (of any types).",
    summary_n="Zips the n-th events of {n} producers (of any types) into flat tuples.",
    example="""```swift
zip(requests, replies).observe { request, reply in print(request, reply) }
```""",
    discussion_two="""The n-th event of each makes the n-th pair; only unmatched events are buffered. It ends when one
has ended and nothing it sent is left unmatched. Overloads take 3 to 10 producers and deliver flat
tuples. See ``Zip``.""",
    discussion_n="""The n-th event of each makes the n-th tuple; only unmatched events are buffered. It ends when one
has ended and nothing it sent is left unmatched. See ``Zip``.""",
  ),
]


def doc(lines: str) -> list[str]:
  return [("/// " + line).rstrip() for line in lines.split("\n")]


def overload(op: Operator, n: int) -> list[str]:
  params = [f"P{i}" for i in range(1, n + 1)]
  events = ", ".join(f"{p}.Event" for p in params)
  out = doc(op.summary_two if n == 2 else op.summary_n.format(n=n))
  out.append("///")
  if n == 2 and op.example:
    out += doc(op.example)
    out.append("///")
  out += doc(op.discussion_two if n == 2 else op.discussion_n)
  returns = f"/// - Returns: a lazy producer of `({events})`."
  if len(returns) > 120:
    returns = f"/// - Returns: a lazy producer of `(P1.Event, P2.Event, ..., P{n}.Event)`."
  out.append(returns)
  out.append("@inlinable")
  out.append(f"public func {op.function}<")
  out += [f"  {p}: EventProducerType{',' if i < n - 1 else ''}" for i, p in enumerate(params)]
  out.append(">(")
  out += [f"  _ {ORDINALS[i]}: {p}{',' if i < n - 1 else ''}" for i, p in enumerate(params)]
  out.append(f") -> {op.result}<({events})> {{")
  out.append(f"  {op.result}(sources: [")
  out += [f"    {op.source}({ORDINALS[i]})," for i in range(n)]
  out.append("  ])")
  out.append("}")
  return out


def generate(op: Operator) -> str:
  lines = [
    "// swift-format-ignore-file",
    f"// Generated by Scripts/generate-arity.py: do not edit. The {op.function} overloads for",
    f"// {op.arities.start} to {op.arities.stop - 1} producers, one-line entry points into the N-ary `{op.result}`.",
  ]
  for n in op.arities:
    lines.append("")
    lines += overload(op, n)
  return "\n".join(lines) + "\n"


def main() -> None:
  for op in OPERATORS:
    (ROOT / op.output).write_text(generate(op))


if __name__ == "__main__":
  main()
