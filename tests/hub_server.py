"""A stand-in for the hub on 127.0.0.1, for push tests: the HTTP routes ``HfApi`` uses to check,
create and list repositories, to commit files (preupload, which names the object id of each file it
holds, LFS batch with basic transfer, commit, README validation) and to download them (``resolve``),
with the repositories kept in memory.

Files the client sends as LFS are listed the way the hub lists them: the git blob id of the pointer
file, and ``lfs.oid`` the SHA-256 of the content.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

_REPO_ROUTE = re.compile(
    r"^/api/(datasets|spaces|models)/([^/]+/[^/]+?)(?:/(tree|preupload|commit|revision)/[^/]+.*)?$"
)
_RESOLVE = re.compile(r"^/(?:(datasets|spaces)/)?([^/]+/[^/]+)/resolve/[^/]+/(.+)$")
_LFS_BATCH = re.compile(r"^/(?:(datasets|spaces)/)?([^/]+/[^/]+)\.git/info/lfs/objects/batch$")


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass
class StoredFile:
    data: bytes
    lfs: bool


@dataclass
class Commit:
    repo: str
    """``<type>s/<repo id>``, as in the hub's URLs."""
    files: dict[str, bytes]
    create_pr: bool


FAKE_TOKEN = "hf_" + "Fake" * 9
"""A token the fake Hub accepts; tests grep outputs for it (it must never be printed)."""


@dataclass
class FakeHub:
    """The repositories (``<type>s/<repo id>`` → path → file), what was asked, and the server."""

    repos: dict[str, dict[str, StoredFile]] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    """``METHOD /path`` of every request, in order."""
    created: list[str] = field(default_factory=list)
    commits: list[Commit] = field(default_factory=list)
    lfs_uploads: list[str] = field(default_factory=list)
    authorizations: set[str] = field(default_factory=set)
    """Every ``Authorization`` header sent."""
    unauthenticated: list[str] = field(default_factory=list)
    """Requests sent without one."""
    _lfs: dict[str, bytes] = field(default_factory=dict)

    def start(self) -> str:
        """Serve on a free port; returns the endpoint URL."""
        hub = self

        class Handler(_Handler):
            fake = hub

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        return self.url

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def head(self, repo: str) -> str:
        """The commit id of ``repo``'s main branch: one per commit to it (``0…0`` before any)."""
        return f"{sum(c.repo == repo and not c.create_pr for c in self.commits):040x}"

    def files(self, repo: str) -> dict[str, bytes]:
        return {path: stored.data for path, stored in self.repos[repo].items()}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeHub

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", ""):
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
                if size == 0:
                    return b"".join(chunks)
        return self.rfile.read(int(self.headers.get("Content-Length", 0)))

    def _send(self, status: int, payload: Any = None, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload if payload is not None else {}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _route(self) -> tuple[str, str | None, str | None]:
        path = urlsplit(self.path).path
        self.fake.requests.append(f"{self.command} {path}")
        if "Authorization" in self.headers:
            self.fake.authorizations.add(self.headers["Authorization"])
        else:
            self.fake.unauthenticated.append(f"{self.command} {path}")
        match = _REPO_ROUTE.match(path)
        if match:
            return f"{match[1]}/{match[2]}", match[3], path
        return "", None, path

    def _resolve(self, body: bool) -> bool:
        """A file download (``/<type>s/<repo>/resolve/<revision>/<path>``), as the hub answers it."""
        match = _RESOLVE.match(urlsplit(self.path).path)
        if not match:
            return False
        self.fake.requests.append(f"{self.command} {urlsplit(self.path).path}")
        repo = f"{match[1] or 'models'}/{match[2]}"
        stored = self.fake.repos.get(repo, {}).get(unquote(match[3]))
        if stored is None:
            self._send(404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"})
            return True
        self.send_response(200)
        self.send_header("Content-Length", str(len(stored.data)))
        self.send_header("ETag", f'"{_oid(stored)}"')
        self.send_header("X-Repo-Commit", self.fake.head(repo))
        self.end_headers()
        if body:
            self.wfile.write(stored.data)
        return True

    def do_HEAD(self) -> None:
        if not self._resolve(body=False):
            self._send(404)

    def do_GET(self) -> None:
        if self._resolve(body=True):
            return
        repo, action, _ = self._route()
        if repo not in self.fake.repos:
            self._send(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
        elif action in (None, "revision"):
            self._send(200, {"id": repo.split("/", 1)[1], "sha": self.fake.head(repo), "private": False})
        elif action == "tree":
            self._send(200, [_tree_entry(path, stored) for path, stored in self.fake.repos[repo].items()])
        else:
            self._send(404)

    def do_POST(self) -> None:
        repo, action, path = self._route()
        body = self._body()
        if path == "/api/repos/create":
            self._create(json.loads(body))
        elif path == "/api/validate-yaml":
            self._send(200, {"errors": [], "warnings": []})
        elif action == "preupload":
            files = json.loads(body)["files"]
            stored = self.fake.repos.get(repo, {})
            modes = [
                {
                    "path": f["path"],
                    "uploadMode": "lfs" if f["path"].endswith(".parquet") else "regular",
                    "shouldIgnore": False,
                    # as the hub: the object id of the file it holds (SHA-256 for LFS, else git blob id)
                    "oid": _oid(stored[f["path"]]) if f["path"] in stored else None,
                }
                for f in files
            ]
            self._send(200, {"files": modes})
        elif action == "commit":
            self._commit(repo, body, "create_pr=1" in urlsplit(self.path).query)
        elif _LFS_BATCH.match(path):
            objects = [
                {"oid": o["oid"], "size": o["size"]}
                | (
                    {}
                    if o["oid"] in self.fake._lfs
                    else {"actions": {"upload": {"href": f"{self.fake.url}/lfs/{o['oid']}"}}}
                )
                for o in json.loads(body)["objects"]
            ]
            self._send(200, {"transfer": "basic", "objects": objects})
        else:
            self._send(404)

    def do_PUT(self) -> None:
        self._route()
        oid = urlsplit(self.path).path.rsplit("/", 1)[-1]
        data = self._body()
        assert hashlib.sha256(data).hexdigest() == oid
        self.fake._lfs[oid] = data
        self.fake.lfs_uploads.append(oid)
        self._send(200)

    def _create(self, request: dict) -> None:
        repo = f"{request.get('type', 'model')}s/{request['organization']}/{request['name']}"
        if repo in self.fake.repos:  # as the hub: the existing repo's URL comes with the conflict
            self._send(409, {"error": "You already created this repo", "url": f"{self.fake.url}/{repo}"})
            return
        self.fake.repos[repo] = {}
        self.fake.created.append(repo)
        self._send(200, {"url": f"{self.fake.url}/{repo}"})

    def _commit(self, repo: str, body: bytes, create_pr: bool) -> None:
        files: dict[str, StoredFile] = {}
        for line in body.decode().splitlines():
            item = json.loads(line)
            value = item["value"]
            if item["key"] == "file":
                files[value["path"]] = StoredFile(base64.b64decode(value["content"]), lfs=False)
            elif item["key"] == "lfsFile":
                files[value["path"]] = StoredFile(self.fake._lfs[value["oid"]], lfs=True)
        self.fake.commits.append(Commit(repo, {p: f.data for p, f in files.items()}, create_pr))
        if not create_pr:
            self.fake.repos[repo].update(files)
        number = len(self.fake.commits)
        oid = self.fake.head(repo) if not create_pr else f"{number:040x}"
        self._send(
            200,
            {
                "commitUrl": f"{self.fake.url}/{repo}/commit/{oid}",
                "commitOid": oid,
                "pullRequestUrl": f"{self.fake.url}/{repo}/discussions/{number}" if create_pr else None,
            },
        )


def _oid(stored: StoredFile) -> str:
    return hashlib.sha256(stored.data).hexdigest() if stored.lfs else git_blob_id(stored.data)


def _tree_entry(path: str, stored: StoredFile) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "file", "path": path, "size": len(stored.data)}
    if not stored.lfs:
        return entry | {"oid": git_blob_id(stored.data)}
    sha256 = hashlib.sha256(stored.data).hexdigest()
    pointer = (
        f"version https://git-lfs.github.com/spec/v1\noid sha256:{sha256}\nsize {len(stored.data)}\n".encode()
    )
    return entry | {
        "oid": git_blob_id(pointer),
        "lfs": {"oid": sha256, "size": len(stored.data), "pointerSize": len(pointer)},
    }
