"""Publishing a validated stage with ``HfApi``: missing repositories are created, then one commit (or
pull request) per repository through ``HfApi.create_commit``.

``create_commit`` asks the hub which files it already holds with the same content (its preupload
call returns each file's object id) and leaves those out; a repository where nothing changed gets no
commit at all. Files on the hub that the stage lacks are left alone. Each staged file is checked
against the SHA-256 it was validated with before it is sent.

The token is huggingface_hub's own (``hf auth login`` or ``HF_TOKEN``); this module never reads,
prints or logs it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

from huggingface_hub import CommitOperationAdd, HfApi
from huggingface_hub.errors import HfHubHTTPError

from eviscope import __version__
from eviscope.core.errors import EviScopeError, first_line
from eviscope.release.stage import Release, StagedRepo
from eviscope.release.validate import FileEntry


@dataclass
class RepoPush:
    """What the push did to one repository."""

    repo: StagedRepo
    created: bool
    files: int
    """Staged files sent to ``create_commit`` (those the hub already held unchanged are left out by it)."""
    commit_url: str | None = None
    """The new commit; None when nothing changed (or a pull request was opened instead)."""
    pr_url: str | None = None


def push(
    api: HfApi, release: Release, files: dict[str, tuple[FileEntry, ...]], *, create_pr: bool
) -> Iterator[RepoPush]:
    """Create the missing repositories of ``release`` and commit its ``files`` (by repo label).

    Yields each repository's result once it is done; a failure stops the push with an
    :class:`EviScopeError` that names the repository.
    """
    for repo in release.repos:
        try:
            result = _push_repo(api, repo, files[repo.label], create_pr)
        except (HfHubHTTPError, OSError, ValueError, RuntimeError) as err:
            message = first_line(err)
            raise EviScopeError(f"{repo.label}: push failed: {message}") from None
        yield result


def _push_repo(api: HfApi, repo: StagedRepo, files: tuple[FileEntry, ...], create_pr: bool) -> RepoPush:
    created = not api.repo_exists(repo.repo_id, repo_type=repo.repo_type)
    if created:
        api.create_repo(repo.repo_id, repo_type=repo.repo_type, space_sdk=repo.space_sdk)
    head = api.repo_info(repo.repo_id, repo_type=repo.repo_type).sha
    operations = []
    for entry in files:
        path = repo.folder / entry.path
        if hashlib.sha256(path.read_bytes()).hexdigest() != entry.sha256:
            raise EviScopeError(
                f"{repo.label}/{entry.path}: changed since it was validated; run the release again"
            )
        operations.append(CommitOperationAdd(path_in_repo=entry.path, path_or_fileobj=path))
    info = api.create_commit(
        repo.repo_id,
        operations,
        repo_type=repo.repo_type,
        commit_message=f"EviScope release {__version__}",
        commit_description="Written by `eviscope release`.",
        create_pr=create_pr,
    )
    result = RepoPush(repo, created, len(operations), pr_url=info.pr_url)
    if not create_pr and info.oid != head:
        result.commit_url = info.commit_url
    return result
