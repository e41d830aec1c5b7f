"""The project speaks only of itself: no file git tracks names a ticket, narrates how it was made, points
at a machine path or cites notes kept outside the repository.

A reader of the code, the tests, the scenarios or the docs should find in them what the project does and the
upstream sources (RFCs, kernel files, papers) it follows. Four kinds of words break that, each a rule below:

- a ticket number (an issue or ticket with a number, or a number in parentheses after a hash sign);
- a work-process phrase: an ordinal or "this", "last", "next", "previous", "earlier", "later" before the
  word for a working period; helpers that built, ran, found, wrote or merged; "another" with "engineer"
  after it; "the run" with "before" after it;
- a machine path: the temporary or the work directory at the root, or the shared notes beside the checkout;
- a citation of the notes outside the repository by file name, or of their shared or seeds directory.

Every pattern is built from pieces so that this file does not match its own rules. A legitimate line that
a rule would catch goes in :data:`ALLOWED` with the reason beside it; keep it tiny.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_ISSUE = "iss" + "ue"
_TICKET = "tick" + "et"
_SESSION = "sess" + "ion"
_ORDINALS = (
    "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
    "fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|\\d+(?:st|nd|rd|th)"
)
_NOTES: tuple[str, ...] = ("DES" + "IGN", "STY" + "LE", "MODERN" + "-ECN", "L4S" + "-AND-PATHS")
_NOTES += ("EMULATION" + "-NOTES", "PEERS" + "-NOTES", "EXPER" + "IMENTS")

#: (rule, pattern): a line that matches a pattern breaks its rule.
RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("ticket number", re.compile(rf"\b(?:{_ISSUE}|{_TICKET})s?\s*[#-]?\s*\d+", re.I)),
    ("ticket number", re.compile(r"\(" + "#" + r"\d+\)")),
    (
        "work process",
        re.compile(rf"\b(?:{_ORDINALS}|this|last|next|previous|earlier|later)\s+{_SESSION}s?\b", re.I),
    ),
    ("work process", re.compile(r"\bhelpers?\s+(?:built|ran|found|wrote|merged)\b", re.I)),
    ("work process", re.compile(r"\banother\s+" + "engin" + r"eers?\b", re.I)),
    ("work process", re.compile(r"\bthe\s+run\s+" + "bef" + r"ore\b", re.I)),
    ("machine path", re.compile(r"(?<![\w.~/-])/(?:" + "tm" + "p|" + "wo" + r"rk)\b")),
    ("machine path", re.compile(r"\.\./" + "sha" + r"red\b")),
    ("outside notes", re.compile(r"\b(?:" + "|".join(_NOTES) + r")\.md\b")),
    ("outside notes", re.compile(r"(?<![\w./-])(?:" + "sha" + "red|" + "se" + "eds)/")),
)

#: (path, text the line contains): legitimate lines a rule would otherwise catch, each with its reason.
ALLOWED: frozenset[tuple[str, str]] = frozenset()


def offences(line: str) -> list[str]:
    """The rules ``line`` breaks (empty when it speaks only of the project)."""
    return sorted({rule for rule, pattern in RULES if pattern.search(line)})


def tracked_text_files(root: Path) -> list[str]:
    """Every file git tracks under ``root`` that reads as UTF-8 text without NUL bytes."""
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    paths = [p for p in listing.decode().split("\0") if p]
    return [p for p in paths if (root / p).is_file() and _is_text(root / p)]


def _is_text(path: Path) -> bool:
    data = path.read_bytes()
    if b"\0" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def offenders(root: Path, paths: list[str], allowed: frozenset[tuple[str, str]] = ALLOWED) -> list[str]:
    """``path:line: [rules] text`` for every line of ``paths`` that breaks a rule and is not allowed."""
    found = []
    for path in paths:
        for number, line in enumerate((root / path).read_text(encoding="utf-8").splitlines(), start=1):
            broken = offences(line)
            if broken and not any(path == p and text in line for p, text in allowed):
                found.append(f"{path}:{number}: [{', '.join(broken)}] {line.strip()[:160]}")
    return found


def test_tracked_files_speak_only_of_the_project() -> None:
    try:
        paths = tracked_text_files(ROOT)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: nothing tracked to read")
    assert paths, "git lists no tracked text files"
    found = offenders(ROOT, paths)
    assert not found, f"{len(found)} line(s) speak of more than the project:\n" + "\n".join(found)


_BAD = [
    ("the bench of " + _ISSUE + " 19", "ticket number"),
    ("see " + _ISSUE + " #17 item 8", "ticket number"),
    (_TICKET.capitalize() + " 3: the step marker", "ticket number"),
    ("a fix (" + "#12)", "ticket number"),
    ("measured in the ninth " + _SESSION, "work process"),
    ("left for the next " + _SESSION, "work process"),
    ("this " + _SESSION + "'s build", "work process"),
    ("the 7th " + _SESSION + " found it", "work process"),
    ("two helpers " + "ran the grid", "work process"),
    ("as another " + "engineer wrote", "work process"),
    ("unchanged since the run " + "before", "work process"),
    ("scripted in /" + "tmp/grid.py", "machine path"),
    ("`/" + "tmp`-scripted", "machine path"),
    ("built in /" + "work/main", "machine path"),
    ("see ../" + "shared for it", "machine path"),
    ("as " + _NOTES[0] + ".md asks", "outside notes"),
    ("(" + _NOTES[2] + ".md §1)", "outside notes"),
    ("sha" + "red/" + _NOTES[5] + ".md", "outside notes"),
    ("(" + "se" + "eds/all-ecn-resource-efficiency.txt)", "outside notes"),
]

_GOOD = [
    "web sessions of pages of objects; a new session's pages are geometric",
    "with tmp_path / 'out' the run writes its files",
    "tempfile.mkdtemp() picks the directory",
    "RFC 3168 section 6.1.2: the sender halves cwnd",
    "tiss" + "ue 3 and reiss" + "ue 4 are words, not tickets",
    "ns-3's TrafficControlHelper and PacketSinkHelper",
    "start_new_session=True puts the child in its own process group",
    "the proptest cases re-run before any novel cases are generated",
    "docs/architecture.md, 'The queue contract'",
    "/usr/share/doc and /var/" + "tmp/x are not this machine's checkout",
    "the flow's seeds are drawn from one RNG stream",
    "CSS colour #123 and a Rust attribute #[derive(Debug)]",
]


@pytest.mark.parametrize(("line", "rule"), _BAD)
def test_a_line_that_names_more_than_the_project_is_caught(line: str, rule: str) -> None:
    assert rule in offences(line)


@pytest.mark.parametrize("line", _GOOD)
def test_a_line_about_the_project_passes(line: str) -> None:
    assert offences(line) == []


def test_the_guard_lists_every_offending_line_with_its_place(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("ok\n# " + _ISSUE + " 5 fixed\nok\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("see /" + "tmp/x\n", encoding="utf-8")
    found = offenders(tmp_path, ["a.py", "b.md"])
    assert [f.split(" [")[0] for f in found] == ["a.py:2:", "b.md:1:"]
    assert "[ticket number]" in found[0] and "[machine path]" in found[1]
    assert offenders(tmp_path, ["a.py", "b.md"], frozenset({("b.md", "see /" + "tmp/x")})) == found[:1]
