"""``eviscope release --namespace ORG (--dry-run | --push [--create-pr])``: publish the hub release.

Stages the dataset repo, the metric Spaces, the browser Space and the results repo (see
:mod:`eviscope.release.stage`), validates them (:mod:`eviscope.release.validate`), starts every
staged Space as the Hub would (:mod:`eviscope.release.runtime`), prints the plan and writes it to
``STAGE/release.json``; with ``--push``, uploads what changed (:mod:`eviscope.release.push`).
Nothing is uploaded unless every check passes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from eviscope import __version__
from eviscope.commands import add_subcommand
from eviscope.core.errors import EviScopeError

if TYPE_CHECKING:
    from eviscope.release.runtime import RuntimeReport
    from eviscope.release.stage import Release
    from eviscope.release.validate import Validation
from eviscope.ragonite.confquestions import CONFQUESTIONS


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_subcommand(
        subparsers,
        "release",
        help="stage, validate and publish the dataset, metric Spaces and Space on the hub",
        description=(
            "Stage every hub repository of the release in a folder, validate them (loading, cards,\n"
            "licences, no ConfQuestions content, no secrets, checksums), print the plan, and with\n"
            "--push create the missing repos and upload the changed files."
        ),
    )
    parser.add_argument(
        "--namespace", required=True, metavar="ORG", help="hub user or organization to publish to"
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--dry-run", action="store_true", help="stage, validate and print the plan; upload nothing"
    )
    mode.add_argument(
        "--push",
        action="store_true",
        help="stage, validate, then create missing repos and upload changed files",
    )
    parser.add_argument(
        "--create-pr",
        action="store_true",
        help="with --push: open a pull request per repo instead of committing",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path("."),
        help="the checkout whose metrics/ and spaces/ are released (default: .)",
    )
    parser.add_argument(
        "--dataset", type=Path, help="the folder `eviscope build` wrote (default: dataset under --root)"
    )
    parser.add_argument(
        "--stage",
        type=Path,
        default=Path("build/release"),
        help="folder to stage the repos in, emptied first (default: build/release)",
    )
    parser.add_argument(
        "--package-spec",
        metavar="URL",
        help="where the Spaces pip-install eviscope from "
        f"(default: git+https://github.com/ORG/eviscope@v{__version__}, ORG being --namespace)",
    )
    parser.add_argument(
        "--confquestions",
        metavar="PATH",
        help="your ConfQuestions copy, to check that none of it is staged; else $EVISCOPE_CONFQUESTIONS",
    )
    parser.add_argument(
        "--runtime-cache",
        type=Path,
        metavar="DIR",
        help="where the Spaces' virtual environments are cached (default: $EVISCOPE_CACHE/space-envs, "
        "else ~/.cache/eviscope/space-envs)",
    )
    parser.add_argument(
        "--skip-runtime-check",
        action="store_true",
        help="do not start the staged Spaces (only when they were just checked: a Space that does not "
        "start is then published anyway)",
    )
    parser.add_argument(
        "--endpoint", metavar="URL", help="hub endpoint (default: $HF_ENDPOINT, else https://huggingface.co)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from eviscope.core.registry import releasable
    from eviscope.release.stage import MANIFEST, default_package_spec, stage_release
    from eviscope.release.validate import validate

    if args.create_pr and not args.push:
        raise EviScopeError("--create-pr needs --push")
    if args.push:
        from huggingface_hub import get_token

        if get_token() is None:
            raise EviScopeError("not logged in to the hub: run `hf auth login` or set HF_TOKEN")
    confquestions = _confquestions(args.confquestions)
    release = stage_release(
        args.namespace,
        source_root=args.root,
        dataset_dir=args.dataset or args.root / "dataset",
        stage_dir=args.stage,
        configs=releasable(),
        package_spec=args.package_spec or default_package_spec(args.namespace),
    )
    with tempfile.TemporaryDirectory(prefix="eviscope-release-") as cache:
        validation = validate(release, confquestions=confquestions, cache_dir=Path(cache))
        if not validation.problems and not args.skip_runtime_check:
            runtime = _check_runtime(release, args.root, args.runtime_cache, Path(cache))
            validation.problems += runtime.problems
            validation.notes += runtime.passed
    if args.skip_runtime_check:
        validation.notes.append("--skip-runtime-check: the staged Spaces were not started")
    for note in validation.notes:
        print(f"note: {note}", file=sys.stderr)
    if validation.problems:
        for problem in validation.problems:
            print(problem, file=sys.stderr)
        raise EviScopeError(
            f"{len(validation.problems)} problem(s) in the release staged in {release.stage_dir}; nothing was uploaded"
        )
    _write_plan(release, validation)
    _print_plan(release, validation)
    if args.dry_run:
        print(f"dry run: nothing was uploaded; the plan is in {release.stage_dir / MANIFEST}")
        return 0
    return _push(release, validation, args.endpoint, args.create_pr)


def _check_runtime(release: Release, root: Path, cache: Path | None, scratch: Path) -> RuntimeReport:
    """Start every staged Space from the package built out of ``root`` (see :mod:`eviscope.release.runtime`)."""
    from eviscope.release.environments import build_wheel, default_cache_dir
    from eviscope.release.runtime import Runtime, check_runtime

    def log(line: str) -> None:
        print(f"runtime check: {line}", file=sys.stderr, flush=True)

    log(f"building the package from {root}")
    wheel = build_wheel(root, scratch / "wheel")
    runtime = Runtime(wheel, cache or default_cache_dir(), scratch / "spaces", log)
    return check_runtime(release, runtime)


def _confquestions(flag: str | None) -> Path | None:
    """The user's ConfQuestions copy, or None when none is configured (the content check is skipped)."""
    try:
        location = Path(CONFQUESTIONS.resolve(flag).location)
    except EviScopeError:
        return None
    if not (location / "documents").is_dir():
        raise EviScopeError(
            f"ConfQuestions: no documents/ folder in {location}; {CONFQUESTIONS.how_to_point()}"
        )
    return location


def _plan(release: Release, validation: Validation) -> dict:
    return {
        "namespace": release.namespace,
        "version": __version__,
        "repos": [
            {
                "repo_id": repo.repo_id,
                "repo_type": repo.repo_type,
                "folder": str(repo.folder),
                "files": [vars(entry) for entry in validation.files[repo.label]],
            }
            for repo in release.repos
        ],
    }


def _write_plan(release: Release, validation: Validation) -> None:
    from eviscope.release.stage import MANIFEST

    text = json.dumps(_plan(release, validation), indent=2) + "\n"
    (release.stage_dir / MANIFEST).write_text(text, encoding="utf-8")


def _print_plan(release: Release, validation: Validation) -> None:
    print(
        f"EviScope {__version__} release to {release.namespace}, staged in {release.stage_dir}; all checks passed"
    )
    for repo in release.repos:
        files = validation.files[repo.label]
        print(f"\n{repo.label} ({repo.kind}): {len(files)} files, {sum(f.size for f in files):,} bytes")
        width = max(len(f.path) for f in files)
        for entry in files:
            print(f"  {entry.path:<{width}}  {entry.size:>12,}  sha256:{entry.sha256}")


def _push(release: Release, validation: Validation, endpoint: str | None, create_pr: bool) -> int:
    from huggingface_hub import HfApi

    from eviscope.release.push import push

    api = HfApi(endpoint=endpoint)
    print()
    for result in push(api, release, validation.files, create_pr=create_pr):
        state = "created" if result.created else "exists"
        link = result.pr_url or result.commit_url
        if result.pr_url:
            changes = f"pull request with the changed files of {result.files}"
        elif result.commit_url:
            changes = f"committed the changed files of {result.files}"
        else:
            changes = f"nothing changed ({result.files} files), no commit"
        print(f"{result.repo.label} ({state}): {changes}" + (f" · {link}" if link else ""))
    browser, results = release.repo("browser"), release.repo("results")
    print(
        f"note: {browser.label} records results only with an HF_TOKEN secret (Space settings) "
        f"that may write to {results.repo_id}"
    )
    return 0
