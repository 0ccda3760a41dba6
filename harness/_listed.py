"""Consumes a stop and the names of a run's subtasks, produces what the stop says of them: the
subtasks it names anywhere (`is_named`), and the ones it lists as finished (`listed_as_finished`):
under a label of finishing in its partial results, or opening a labelled clause of its texts."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from unsolvable._stop import Stop
from unsolvable._text import plain_partial

__all__ = ["FINISHED_LABELS", "is_named", "listed_as_finished"]

FINISHED_LABELS = ("finished", "succeeded", "done", "completed", "complete")
"""The words that label a list of subtasks as finished: a key of the partial results
(``{"finished": [...]}``), the state a subtask is mapped to (``{"S-1": "succeeded"}``), or a
clause of a text (``finished: S-1, S-2;``)."""
_NOT_A_CLAIM = frozenset({"not", "never", "yet", "no", "be", "to", "cannot", "t"})
"""A word that, just before a label, makes it say the opposite or the future: ``not finished:``,
``to be done:``, ``unable to complete:``, ``couldn't complete:`` list what did not finish."""
_BEFORE_LABEL = 40
"""Characters before a label read for a word that makes it no claim: a few words."""
_SEPARATOR = re.compile(r"""(?:[\s,&'"`]|\band\b)*""")
"""What stands between the names of a list (``S-1, S-2 and S-3``), quotes around them included."""
_LABEL = re.compile(rf"(?<![\w-])(?:{'|'.join(FINISHED_LABELS)})\s*:", re.IGNORECASE)
_CLAUSE_END = re.compile(r";|\n|\.(?=\s|$)")
"""A labelled clause runs to a semicolon, a line's end or a full stop, whichever comes first."""
_STATE_KEYS = ("state", "status")


def is_named(name: str, said: str, names: Sequence[str]) -> bool:
    """Whether ``said`` names ``name`` itself, not only a longer subtask name that holds it
    (``S-10`` does not say ``S-1``), as `named_subtask` reads a worker's conversation."""
    for longer in sorted((n for n in names if name in n and n != name), key=len, reverse=True):
        said = said.replace(longer, "")
    return name in said


def listed_as_finished(stop: Stop, names: Sequence[str]) -> list[str]:
    """The subtasks of ``names`` that ``stop`` lists as finished, in the order of ``names``: a
    stop may name every subtask (the contract's says what each came to), but only these does
    it say are done."""
    partial = plain_partial(stop.partial)  # bounded however the agent built it
    texts = [stop.reason, *stop.missing]
    listed = {n for text in texts for clause in _clauses(text) for n in _names_at(clause, names)}
    listed.update(_in_partial(partial, names))
    return [name for name in names if name in listed]


def _clauses(text: str) -> Iterator[str]:
    """The clauses of ``text`` that a label of finishing opens, each from the label to its end."""
    for label in _LABEL.finditer(text):
        before = re.findall(r"\w+", text[max(0, label.start() - _BEFORE_LABEL) : label.start()])
        if before and before[-1].lower() in _NOT_A_CLAIM:
            continue
        rest = text[label.end() :]
        end = _CLAUSE_END.search(rest)
        yield rest if end is None else rest[: end.start()]


def _names_at(text: str, names: Sequence[str]) -> Iterator[str]:
    """The subtask names ``text`` opens with, one after another, up to the first word that is
    none: a clause lists those, and whatever it goes on to say is not listed
    (``finished: S-1, S-2 but S-4 failed`` lists S-1 and S-2)."""
    longest_first = sorted(names, key=len, reverse=True)
    at = 0
    while True:
        separator = _SEPARATOR.match(text, at)
        at = separator.end() if separator else at
        name = next((n for n in longest_first if _opens(text, at, n)), None)
        if name is None:
            return
        yield name
        at += len(name)


def _opens(text: str, at: int, name: str) -> bool:
    """Whether ``name`` is written at ``at`` as a whole (``S-1`` does not open ``S-10``)."""
    end = at + len(name)
    return text.startswith(name, at) and not (end < len(text) and _joins(text[end]))


def _joins(char: str) -> bool:
    return char.isalnum() or char in "-_"


def _is_label(word: object) -> bool:
    return isinstance(word, str) and word.strip().lower() in FINISHED_LABELS


def _is_finished_state(value: object) -> bool:
    """A state that says finished: its first word a label (``"succeeded"``, ``"done (filed)"``),
    or a mapping whose state or status says so."""
    if isinstance(value, dict):
        return any(_is_finished_state(value.get(key)) for key in _STATE_KEYS)
    words = re.findall(r"\w+", value) if isinstance(value, str) else []
    return bool(words) and _is_label(words[0])


def _in_partial(value: object, names: Sequence[str]) -> Iterator[str]:
    """The subtasks a partial result (JSON, as a record keeps it) lists as finished: in a text's
    clauses, under a label, and each mapped to a finished state, at any depth."""
    if isinstance(value, str):
        yield from (n for clause in _clauses(value) for n in _names_at(clause, names))
    elif isinstance(value, list):
        for item in value:
            yield from _in_partial(item, names)
    elif isinstance(value, dict):
        for key, item in value.items():
            if _is_label(key):
                yield from _listed_under(item, names)
            elif key in names and _is_finished_state(item):
                yield key
            yield from _in_partial(item, names)


def _listed_under(value: object, names: Sequence[str]) -> Iterator[str]:
    """What a label of finishing keys: the names its texts open with, or the names of a
    mapping's keys that hold true."""
    if isinstance(value, str):
        yield from _names_at(value, names)
    elif isinstance(value, list):
        for item in value:
            yield from _listed_under(item, names)
    elif isinstance(value, dict):
        yield from (n for key, item in value.items() if item for n in _names_at(key, names))
