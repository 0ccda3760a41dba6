"""Consumes the ``--json`` files of a run's shards (``unsolvable run --shard K/N``, ``pytest
--unsolvable-shard K/N``), produces the records of the whole run in the order it writes them:
what `publish` turns into the same metrics, gate and bytes as one unsharded run.

Each part says where its records go (`unsolvable._shard.ShardTag`), so the merge never guesses
an order; parts that do not make exactly one whole run are refused, naming what is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from unsolvable._errors import ShardError
from unsolvable._input import load_json, read_input
from unsolvable._numbers import counted
from unsolvable._record import TerminationRecord, check_file_schema
from unsolvable._shard import ShardTag, in_order
from unsolvable.reports._files import STREAM_SUFFIX

__all__ = ["Part", "merge", "read_part"]

SAME_COMMAND = (
    "make every shard with the same command, changing only its shard (--shard K/N, "
    "--unsolvable-shard K/N)"
)
"""What to do about parts that were not cut from one run."""


@dataclass(frozen=True, kw_only=True)
class Part:
    """One shard's file: its records and its tag."""

    path: Path
    records: tuple[TerminationRecord, ...]
    tag: ShardTag


def read_part(path: Path) -> Part:
    """A shard's ``--json`` file; a file that is not one is a `ShardError` saying so."""
    if path.name.endswith(STREAM_SUFFIX):
        raise ShardError(
            f"{str(path)!r} is a record stream (.jsonl), which a shard leaves when it is killed "
            "before it writes its --json file: it holds no shard's place in the whole run, and "
            "its shard did not finish every run; run that shard again"
        )
    try:
        data = load_json(read_input(path), what=f"shard file {str(path)!r}")
        if not isinstance(data, dict) or not isinstance(data.get("records"), list):
            raise ValueError('it holds no "records" list')
        check_file_schema(data)
        records = tuple(TerminationRecord.from_dict(record) for record in data["records"])
        shard = data.get("shard")
        tag = None if shard is None else ShardTag.from_dict(shard)
    except (ValueError, KeyError, TypeError) as error:
        raise ShardError(
            f"cannot read {str(path)!r} ({error}); pass the --json files that unsolvable run "
            "--shard K/N or pytest --unsolvable-shard K/N wrote"
        ) from None
    if tag is None:
        raise ShardError(
            f"{str(path)!r} holds no shard: it was written without --shard K/N "
            "(unsolvable report reads a whole run's file)"
        )
    if len(tag.order) != len(records):
        raise ShardError(f"{str(path)!r}: its shard's order does not match its records")
    return Part(path=path, records=records, tag=tag)


def merge(parts: Sequence[Part]) -> list[TerminationRecord]:
    """The whole run's records, each part's put where its keys say; `ShardError` unless the
    parts are every shard of one run, once each, each run to its end."""
    _check(parts)
    return in_order(
        (key, record)
        for part in parts
        for key, record in zip(part.tag.order, part.records, strict=True)
    )


def _check(parts: Sequence[Part]) -> None:
    if not parts:
        raise ShardError("no parts to merge: pass every shard's --json file")
    counts = {part.tag.shard.count for part in parts}
    if len(counts) > 1:
        shards = _each(parts, lambda part: f"into {part.tag.shard.count} shards")
        raise ShardError(f"the parts split different runs ({shards}); {SAME_COMMAND}")
    count = counts.pop()
    given = sorted(part.tag.shard.index for part in parts)
    if given != list(range(1, count + 1)):
        missing = sorted(set(range(1, count + 1)) - set(given))
        twice = sorted({index for index in given if given.count(index) > 1})
        what = [f"missing {_list(missing)}"] if missing else []
        what += [f"twice {_list(twice)}"] if twice else []
        raise ShardError(
            f"the parts are not shards 1 to {count} once each ({'; '.join(what)}); pass one "
            "--json file per shard"
        )
    for part in parts:
        if not part.tag.complete:
            raise ShardError(
                f"{str(part.path)!r}, shard {part.tag.shard}, did not finish every run (it was "
                "interrupted, or lost a worker); run that shard again"
            )
    if len({_face(part) for part in parts}) > 1:
        faces = _each(parts, lambda part: f"by {_face(part)}")
        raise ShardError(f"the parts were written by different faces ({faces}); {SAME_COMMAND}")
    _check_positions(parts)


def _face(part: Part) -> str:
    """Which face wrote a part: only ``unsolvable run`` knows how many runs the whole run has."""
    return "pytest" if part.tag.runs is None else "unsolvable run"


def _each(parts: Sequence[Part], say: Callable[[Part], str]) -> str:
    """What ``say`` says of each part, the parts it says alike together: the evidence of a
    refusal, naming the files to make again."""
    said: dict[str, list[str]] = {}
    for part in parts:
        said.setdefault(say(part), []).append(str(part.path))
    return "; ".join(f"{', '.join(paths)} {words}" for words, paths in said.items())


def _check_positions(parts: Sequence[Part]) -> None:
    """Every part was cut from one run (`ShardTag.plan`), and ``unsolvable run``'s parts hold
    every position of the whole run exactly once."""
    runs = {part.tag.runs for part in parts}
    if len(runs) > 1:
        sizes = _each(parts, lambda part: f"of {part.tag.runs} runs")
        raise ShardError(f"the parts split different runs ({sizes}); {SAME_COMMAND}")
    if len({part.tag.plan for part in parts}) > 1:
        raise ShardError(
            "the parts were cut from different runs (other agents, scenarios, seeds or flags, "
            f"or the same in another order); {SAME_COMMAND}"
        )
    if runs == {None}:
        return
    total = runs.pop()
    held = sorted(int(key[0]) for part in parts for key in part.tag.order)
    if held != list(range(total or 0)):
        raise ShardError(
            f"the parts do not hold each of the whole run's {counted(total or 0, 'run')} once "
            f"({counted(len(held), 'record')}); {SAME_COMMAND}"
        )


def _list(values: Iterable[int]) -> str:
    return ", ".join(str(value) for value in sorted(values))
