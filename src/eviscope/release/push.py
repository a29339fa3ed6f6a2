"""Publishing a validated stage with ``HfApi``: missing repositories are created, changed files uploaded.

A file is unchanged when the hub already holds the same bytes: the SHA-256 of its LFS (or Xet)
object, or for a file kept in git, its git blob id (SHA-1 of ``blob <size>\\0`` and the bytes). Only
changed files go into the one commit (or pull request) per repository; a repository with none gets
no commit. Files on the hub that the stage lacks are left alone.

The token is huggingface_hub's own (``hf auth login`` or ``HF_TOKEN``); this module never reads,
prints or logs it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from huggingface_hub import CommitOperationAdd, HfApi
from huggingface_hub.errors import HfHubHTTPError
from huggingface_hub.hf_api import RepoFile

from eviscope import __version__
from eviscope.errors import EviScopeError
from eviscope.release.stage import Release, StagedRepo
from eviscope.release.validate import FileEntry


@dataclass
class RepoPush:
    """What the push did to one repository."""

    repo: StagedRepo
    created: bool
    uploaded: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    commit_url: str | None = None
    pr_url: str | None = None


def git_blob_id(data: bytes) -> str:
    """The git object id of a file's bytes, as the hub reports it for files kept in git.

    >>> git_blob_id(b"hello\\n")
    'ce013625030ba8dba906f756967f9e9ca394464a'
    """
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def is_unchanged(local: FileEntry, data: bytes, remote: RepoFile | None) -> bool:
    """Does the hub already hold exactly ``data``, the bytes of ``local``?"""
    if remote is None or remote.size != local.size:
        return False
    if remote.lfs is not None:
        return remote.lfs.sha256 == local.sha256
    return remote.blob_id == git_blob_id(data)


def push(
    api: HfApi, release: Release, files: dict[str, tuple[FileEntry, ...]], *, create_pr: bool
) -> Iterator[RepoPush]:
    """Create the missing repositories of ``release`` and upload its changed ``files`` (by repo label).

    Yields each repository's result once it is done; a failure stops the push with an
    :class:`EviScopeError` that names the repository.
    """
    for repo in release.repos:
        try:
            result = _push_repo(api, repo, files[repo.label], create_pr)
        except (HfHubHTTPError, OSError, ValueError, RuntimeError) as err:
            message = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise EviScopeError(f"{repo.label}: push failed: {message}") from None
        yield result


def _push_repo(api: HfApi, repo: StagedRepo, files: tuple[FileEntry, ...], create_pr: bool) -> RepoPush:
    created = not api.repo_exists(repo.repo_id, repo_type=repo.repo_type)
    if created:
        api.create_repo(repo.repo_id, repo_type=repo.repo_type, space_sdk=repo.space_sdk)
    remote = {
        item.path: item
        for item in api.list_repo_tree(repo.repo_id, repo_type=repo.repo_type, recursive=True)
        if isinstance(item, RepoFile)
    }
    result = RepoPush(repo, created)
    operations = []
    for entry in files:
        data = (repo.folder / entry.path).read_bytes()
        if hashlib.sha256(data).hexdigest() != entry.sha256:
            raise EviScopeError(
                f"{repo.label}/{entry.path}: changed since it was validated; run the release again"
            )
        if is_unchanged(entry, data, remote.get(entry.path)):
            result.unchanged.append(entry.path)
        else:
            result.uploaded.append(entry.path)
            operations.append(
                CommitOperationAdd(path_in_repo=entry.path, path_or_fileobj=repo.folder / entry.path)
            )
    if operations:
        info = api.create_commit(
            repo.repo_id,
            operations,
            repo_type=repo.repo_type,
            commit_message=f"EviScope release {__version__}",
            commit_description=f"{len(operations)} file(s) changed, written by `eviscope release`.",
            create_pr=create_pr,
        )
        result.commit_url, result.pr_url = info.commit_url, info.pr_url
    return result
