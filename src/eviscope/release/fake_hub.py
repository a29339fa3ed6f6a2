"""A local stand-in for the Hub's file URLs of the staged Spaces, so that ``evaluate.load("ORG/NAME")``
runs through evaluate's own hub path against what is staged (``HF_ENDPOINT`` points at it)."""

from __future__ import annotations

import http.server
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from eviscope.release.stage import Release


class _StagedHubHandler(http.server.SimpleHTTPRequestHandler):
    """Serves ``/spaces/ORG/NAME/resolve/main/FILE`` from the staged Space folders (404 otherwise)."""

    spaces: dict[str, Path] = {}  # noqa: RUF012  (set per server class below)

    def translate_path(self, path: str) -> str:
        match = re.fullmatch(r"/spaces/([^/]+/[^/]+)/resolve/main/([^?#]+)(?:[?#].*)?", path)
        folder = self.spaces.get(match.group(1)) if match else None
        if folder is None or ".." in match.group(2).split("/"):
            return str(Path("/nonexistent") / "missing")
        return str(folder / match.group(2))

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def staged_hub(release: Release) -> Iterator[str]:
    """A local server that answers evaluate's hub URLs for the staged Spaces; yields its endpoint."""
    handler = type(
        "Handler",
        (_StagedHubHandler,),
        {
            "spaces": {
                repo.repo_id: repo.folder.resolve() for repo in release.repos if repo.repo_type == "space"
            }
        },
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
