"""Validation of a staged release, before anything leaves the machine.

Each problem is one line that starts with the repository and file at fault, as the hub's URLs name
them (``datasets/ORG/eviscope/README.md: …``). The checks:

- every file: a SHA-256 checksum (the plan shows it; the push compares it with the hub's); no secret
  (Hugging Face, OpenAI, GitHub, AWS, Google and Slack tokens, private keys, quoted credentials; the
  line never repeats the secret); no ConfQuestions content (its page ids, URLs and titles, when a
  copy is configured; no path or config naming it in any case);
- the dataset: the card parses as a ``DatasetCard`` with a licence, a citation and the provenance of
  every config (its source among ``source_datasets``, its licence and source in the header's
  ``provenance``, its name in the text); it declares exactly the releasable configs, each with its
  Parquet file; ``load_dataset`` reads every config with the split sizes the card declares;
  ``eval.yaml`` follows the schema of the Hub's documentation
  (:mod:`eviscope.release.eval_results`) and names tasks on declared configs and splits;
- each metric Space: the card parses as a ``SpaceCard`` with a licence and a citation, and
  ``evaluate.load`` loads the staged folder;
- the browser Space: the card parses, ``app.py`` and the app it starts are there;
- the results repo: the card parses;
- every ``requirements.txt``: valid requirements, the package as ``eviscope @ URL``.

Starting the Spaces as the Hub would is :mod:`eviscope.release.runtime`'s check, run after these.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pyarrow.parquet as pq
import yaml
from huggingface_hub import DatasetCard, RepoCard, SpaceCard
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from eviscope import DISTRIBUTION
from eviscope.core.errors import first_line
from eviscope.core.layout import SPLIT, split_path
from eviscope.release.eval_results import eval_yaml_problems
from eviscope.release.stage import Release, StagedRepo

SECRET_PATTERNS: dict[str, re.Pattern[str]] = {
    kind: re.compile(pattern)
    for kind, pattern in {
        "Hugging Face token": r"hf_[A-Za-z0-9]{30,}",
        "OpenAI or Anthropic API key": r"sk-[A-Za-z0-9_-]{20,}",
        "GitHub token": r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        "AWS access key id": r"(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        "Google API key": r"AIza[0-9A-Za-z_-]{35}",
        "Slack token": r"xox[abposr]-[A-Za-z0-9-]{10,}",
        "private key": r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----",
        "credential": r"(?i:(?:api[_-]?key|secret|token|password|passwd)\b\s*[:=]\s*['\"][^'\"\s]{12,}['\"])",
    }.items()
}
"""What counts as a secret in a staged file (starting at a word boundary): token formats, private
keys, quoted credentials. The patterns open with a literal, which keeps the scan of the data fast."""

_PAGE_ID = re.compile(r"\bconfluence-\d{3}\b")

MIN_TITLE_WORDS = 3
"""ConfQuestions page titles shorter than this (``Xen``, ``Coding``) are common words, not content."""


@dataclass(frozen=True)
class FileEntry:
    """One staged file: its path in the repository, size in bytes and SHA-256."""

    path: str
    size: int
    sha256: str


@dataclass
class Validation:
    """What validation found: the problems (empty when the release may go out) and every file."""

    files: dict[str, tuple[FileEntry, ...]]
    """Each repository's files, by :attr:`StagedRepo.label`."""
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Checks that could not run, said once each (not problems)."""


def inventory(repo: StagedRepo) -> tuple[FileEntry, ...]:
    """Every file of a staged repository, sorted by path in the repository, with size and SHA-256."""
    entries = []
    for path in (p for p in repo.folder.rglob("*") if p.is_file()):
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        entries.append(
            FileEntry(path.relative_to(repo.folder).as_posix(), path.stat().st_size, digest.hexdigest())
        )
    return tuple(sorted(entries, key=lambda entry: entry.path))


@dataclass(frozen=True)
class ConfQuestionsMarks:
    """What only ConfQuestions holds: its page ids, the site its page URLs are on, and its specific
    page titles (titles under :data:`MIN_TITLE_WORDS` words, ``Xen`` or ``Coding``, are ordinary words)."""

    page_ids: frozenset[str]
    sites: frozenset[str]
    titles: tuple[str, ...]

    @classmethod
    def read(cls, folder: Path) -> ConfQuestionsMarks:
        """The marks of the copy in ``folder`` (``documents/confluence-NNN.json``)."""
        pages = [
            json.loads(p.read_text(encoding="utf-8")) for p in sorted((folder / "documents").glob("*.json"))
        ]
        return cls(
            frozenset(page["id"] for page in pages),
            frozenset(urlsplit(page["url"]).netloc for page in pages),
            tuple(page["title"] for page in pages if len(page["title"].split()) >= MIN_TITLE_WORDS),
        )

    def find(self, text: str) -> Iterator[tuple[int, str]]:
        """Each mark in ``text``: its offset and what it is."""
        for match in _PAGE_ID.finditer(text):
            if match.group() in self.page_ids:
                yield match.start(), f"page id {match.group()!r}"
        for needle, what in [
            *((site, "site") for site in self.sites),
            *((t, "page title") for t in self.titles),
        ]:
            offset = text.find(needle)
            while offset >= 0:
                yield offset, f"{what} {needle!r}"
                offset = text.find(needle, offset + 1)


def validate(release: Release, *, confquestions: Path | None, cache_dir: Path) -> Validation:
    """Run every check on ``release``; ``confquestions`` is the user's copy (None: none configured).

    ``cache_dir`` receives the Arrow files ``load_dataset`` writes while reading the staged data.
    """
    result = Validation({repo.label: inventory(repo) for repo in release.repos})
    marks = None
    if confquestions is None:
        result.notes.append(
            "ConfQuestions: no copy configured (--confquestions or EVISCOPE_CONFQUESTIONS), so staged "
            "text was not compared with its pages; paths and configs were checked"
        )
    else:
        marks = ConfQuestionsMarks.read(confquestions)
    for repo in release.repos:
        if not result.files[repo.label]:
            result.problems.append(f"{repo.label}: nothing staged")
        for entry in result.files[repo.label]:
            where = f"{repo.label}/{entry.path}"
            if "confquestions" in entry.path.casefold():
                result.problems.append(f"{where}: a ConfQuestions path; ConfQuestions is never released")
            result.problems += [
                f"{where}{line}" for line in _content_problems(repo.folder / entry.path, marks)
            ]
            if entry.path.rsplit("/", 1)[-1] == "requirements.txt":
                result.problems += [f"{where}: {p}" for p in _requirements_problems(repo.folder / entry.path)]
        checks = {
            "benchmark": _check_benchmark,
            "metric": _check_metric,
            "browser": _check_browser,
            "results": _check_results,
        }
        result.problems += [f"{repo.label}/{p}" for p in checks[repo.kind](repo, release, cache_dir)]
    return result


# --- Content: secrets and ConfQuestions ------------------------------------------------------------


def _content_problems(path: Path, marks: ConfQuestionsMarks | None) -> list[str]:
    """Secrets and ConfQuestions marks in a staged file, as ``:LINE: message`` or `` row N: message``."""
    text, rows = _text(path)

    def where(offset: int) -> str:
        if rows is None:
            return f":{text.count(chr(10), 0, offset) + 1}"
        return f" row {bisect.bisect_right(rows, offset)}"

    found = [
        (match.start(), f"looks like a {kind}; remove it")
        for kind, pattern in SECRET_PATTERNS.items()
        for match in pattern.finditer(text)
        if match.start() == 0 or not (text[match.start() - 1].isalnum() or text[match.start() - 1] == "_")
    ]
    if marks is not None:
        found += [
            (offset, f"ConfQuestions content ({what}); it is never released")
            for offset, what in marks.find(text)
        ]
    return [f"{where(offset)}: {message}" for offset, message in sorted(found)]


def _text(path: Path) -> tuple[str, list[int] | None]:
    """A staged file's text, and for a Parquet file (every string of every row, row after row) the
    offset where each row starts."""
    if path.suffix != ".parquet":
        return path.read_bytes().decode("utf-8", errors="replace"), None
    starts, parts, offset = [], [], 0
    for row in pq.read_table(path).to_pylist():
        part = "\n".join(_strings(row)) + "\0"
        starts.append(offset)
        parts.append(part)
        offset += len(part)
    return "".join(parts), starts


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


# --- Cards -------------------------------------------------------------------------------------------


def _load_card(repo: StagedRepo, card_class: type[RepoCard], problems: list[str]) -> RepoCard | None:
    path = repo.folder / "README.md"
    if not path.is_file():
        problems.append("README.md: no card")
        return None
    try:
        return card_class.load(path)
    except Exception as err:
        problems.append(f"README.md: does not parse as a {card_class.__name__}: {first_line(err)}")
        return None


def _licence_and_citation(card: RepoCard) -> list[str]:
    problems = []
    if not card.data.get("license"):
        problems.append("README.md: no licence (`license:` in the card header)")
    if not _has_citation(card.text):
        problems.append("README.md: no citation (a section titled Citation, or a BibTeX entry)")
    return problems


def _has_citation(text: str) -> bool:
    """A heading that names a citation followed by some text, or a BibTeX entry.

    >>> _has_citation("# Card\\n\\n## Licence and citation\\n\\nCite SQuAD.\\n")
    True
    >>> _has_citation("## Citation\\n\\n## Next\\n")
    False
    """
    if re.search(r"@\w+\s*\{", text):
        return True
    sections = re.split(r"^#+ ", text, flags=re.MULTILINE)
    return any(
        "citation" in section.split("\n", 1)[0].casefold() and section.split("\n", 1)[-1].strip()
        for section in sections[1:]
    )


# --- Per kind ------------------------------------------------------------------------------------------


def _check_benchmark(repo: StagedRepo, release: Release, cache_dir: Path) -> list[str]:
    problems: list[str] = []
    card = _load_card(repo, DatasetCard, problems)
    if card is None:
        return problems
    declared = {c.get("config_name"): c for c in card.data.get("configs") or []}
    layout = _layout(repo, declared, release.configs)
    problems = [*_licence_and_citation(card), *_provenance(card, declared, release.configs), *layout]
    problems += _check_eval_yaml(repo.folder / "eval.yaml", declared)
    if not layout:  # `datasets` resolves every declared config's files, so a broken layout fails them all
        sizes = {
            info.get("config_name"): {s["name"]: s.get("num_examples") for s in info.get("splits") or []}
            for info in card.data.get("dataset_info") or []
        }
        problems += _check_loading(repo, release.configs, sizes, cache_dir)
    return problems


def _layout(repo: StagedRepo, declared: dict[str, dict], configs: tuple[str, ...]) -> list[str]:
    """The card declares exactly the releasable configs, and the staged data is exactly their files."""
    problems = []
    for name in declared:
        if name is None or "confquestions" in name.casefold():
            problems.append(f"README.md: declares config {name!r}; ConfQuestions is never released")
        elif name not in configs:
            problems.append(f"README.md: declares config {name!r}, which is not releasable")
    problems += [f"README.md: does not declare config {name!r}" for name in configs if name not in declared]
    staged = {p.relative_to(repo.folder).as_posix() for p in (repo.folder / "data").rglob("*.parquet")}
    named = set()
    for name, config in declared.items():
        for data_file in config.get("data_files") or []:
            named.add(data_file["path"])
            if data_file["path"] not in staged:
                problems.append(f"README.md: config {name!r} names {data_file['path']}, which is not staged")
    return problems + [f"{path}: staged but declared by no config" for path in sorted(staged - named)]


def _provenance(card: RepoCard, declared: dict[str, dict], configs: tuple[str, ...]) -> list[str]:
    """Each config's licence is in the header's ``provenance``; the hub dataset of its source (none for
    a config made from nothing external) is among ``source_datasets`` and in its ``provenance``; a
    config made from a user's own copy (a source with no hub dataset) is never released; the card's
    text describes the config."""
    from eviscope.core.registry import configs as registered
    from eviscope.core.registry import source_of

    known = registered()
    sources = set(card.data.get("source_datasets") or [])
    per_config = {entry.get("config_name"): entry for entry in card.data.get("provenance") or []}
    problems = []
    for name in (name for name in configs if name in declared):
        source = source_of(*known[name])
        entry = per_config.get(name, {})
        if source is None:
            if not entry.get("license"):
                problems.append(f"README.md: `provenance` gives no licence for config {name!r}")
        elif source.hub_id is None:
            problems.append(
                f"README.md: config {name!r} is made from {source.what}, a user's own copy that is never "
                f"redistributed (no hub dataset); only a config with releasable=False may use it"
            )
        else:
            if source.hub_id not in sources:
                problems.append(
                    f"README.md: no provenance for config {name!r}: {source.hub_id} is not in source_datasets"
                )
            if not entry.get("license") or source.hub_id not in (entry.get("source_datasets") or []):
                problems.append(
                    f"README.md: `provenance` gives no licence and source ({source.hub_id}) for config {name!r}"
                )
        if f"`{name}`" not in card.text:
            problems.append(f"README.md: the text never describes config `{name}`")
    return problems


def _check_eval_yaml(path: Path, declared: dict[str, dict]) -> list[str]:
    """``eval.yaml`` follows the Hub's documented schema, and its tasks name declared configs and splits."""
    if not path.is_file():
        return ["eval.yaml: missing; the hub lists the dataset as a benchmark only with it"]
    text = path.read_text(encoding="utf-8")
    problems = eval_yaml_problems(text)
    if problems:
        return problems
    for task in yaml.safe_load(text)["tasks"]:
        config, split = task.get("config", "default"), task["split"]
        splits = {f["split"] for f in declared.get(config, {}).get("data_files") or []}
        if config not in declared:
            problems.append(f"eval.yaml: task {task['id']!r} names config {config!r}, which the card lacks")
        elif split not in splits:
            problems.append(f"eval.yaml: task {task['id']!r} names split {split!r}, which {config} lacks")
    return problems


def _check_loading(
    repo: StagedRepo, configs: tuple[str, ...], sizes: dict[str, dict[str, int]], cache_dir: Path
) -> list[str]:
    import datasets

    problems = []
    bars = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    for config in configs:
        where = split_path(Path(), config).as_posix()
        try:
            rows = datasets.load_dataset(
                str(repo.folder), config, split=SPLIT, cache_dir=str(cache_dir), verification_mode="no_checks"
            )
        except Exception as err:
            problems.append(f"{where}: load_dataset(…, {config!r}) failed: {first_line(err)}")
            continue
        expected = sizes.get(config, {}).get(SPLIT)
        if expected != rows.num_rows:
            problems.append(
                f"{where}: {rows.num_rows} rows, but README.md declares {expected} for {config}/{SPLIT}"
            )
    if bars:
        datasets.enable_progress_bars()
    return problems


def _check_metric(repo: StagedRepo, release: Release, cache_dir: Path) -> list[str]:
    import evaluate

    problems: list[str] = _missing(repo, "requirements.txt", "app.py")
    card = _load_card(repo, SpaceCard, problems)
    if card is not None:
        problems += _licence_and_citation(card)
    module = f"{repo.folder.name}.py"
    if not (repo.folder / module).is_file():
        return [*problems, f"{module}: missing; evaluate.load looks for it"]
    try:
        evaluate.load(str(repo.folder))
    except Exception as err:
        problems.append(f"{module}: evaluate.load failed: {first_line(err)}")
    return problems


def _check_browser(repo: StagedRepo, release: Release, cache_dir: Path) -> list[str]:
    problems = _missing(repo, "requirements.txt", "app.py", "eviscope_space.py")
    _load_card(repo, SpaceCard, problems)
    return problems


def _missing(repo: StagedRepo, *names: str) -> list[str]:
    return [f"{name}: missing" for name in names if not (repo.folder / name).is_file()]


def _check_results(repo: StagedRepo, release: Release, cache_dir: Path) -> list[str]:
    problems: list[str] = []
    _load_card(repo, DatasetCard, problems)
    return problems


def _requirements_problems(path: Path) -> list[str]:
    problems = []
    installs_package = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = re.split(r"(?:^|\s)#", line, maxsplit=1)[0].strip()
        if not text or text.startswith("-"):
            continue
        try:
            requirement = Requirement(text)
        except InvalidRequirement as err:
            problems.append(f"line {number} is not a requirement: {first_line(err)}")
            continue
        if canonicalize_name(requirement.name) == DISTRIBUTION:
            if requirement.url:
                installs_package = True
            else:
                problems.append(
                    f"line {number}: eviscope is not on PyPI; name it with a URL (--package-spec)"
                )
    if not installs_package:
        problems.append("does not install eviscope (eviscope @ URL)")
    return problems
