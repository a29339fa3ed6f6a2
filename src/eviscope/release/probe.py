"""What the runtime check does inside a staged Space's own environment (``python -m eviscope.release.probe``).

Run by :mod:`eviscope.release.runtime` with the Space's virtual environment, never in the caller's:
it talks to the running Space through ``gradio_client`` (which that environment has, with gradio),
or loads a metric through ``evaluate``'s hub path, and prints one JSON object on stdout.

- ``compute URL INPUTS``: ``/compute`` of a metric Space on ``INPUTS`` (a JSON file holding
  ``predictions`` and ``references``); prints the result.
- ``browser URL CONFIG PREDICTIONS``: ``/browse`` (no filter) and ``/submit`` of the browser Space;
  prints the browse note, the number of rows shown and the submission status.
- ``hub-load REPO_ID INPUTS``: ``evaluate.load(REPO_ID)`` (the endpoint comes from ``HF_ENDPOINT``)
  and ``compute`` on ``INPUTS``; prints the result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _inputs(path: str) -> tuple[list[Any], list[Any]]:
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    return document["predictions"], document["references"]


def compute(url: str, inputs: str) -> Any:
    from gradio_client import Client

    predictions, references = _inputs(inputs)
    client = Client(url, verbose=False)
    return client.predict(json.dumps(predictions), json.dumps(references), api_name="/compute")


def browser(url: str, config: str, predictions: str) -> dict[str, Any]:
    from gradio_client import Client, handle_file

    client = Client(url, verbose=False)
    table, note = client.predict(config, query="", api_name="/browse")  # each filter at "any", its default
    status, _report, _plots = client.predict(
        config, "runtime-check", handle_file(predictions), api_name="/submit"
    )
    return {"browse_rows": len(table["data"]), "browse_note": note, "submit_status": status}


def hub_load(repo_id: str, inputs: str) -> Any:
    import evaluate

    predictions, references = _inputs(inputs)
    module = evaluate.load(repo_id)
    return module.compute(predictions=predictions, references=references)


def main(argv: list[str]) -> int:
    commands = {"compute": compute, "browser": browser, "hub-load": hub_load}
    result = commands[argv[0]](*argv[1:])
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
