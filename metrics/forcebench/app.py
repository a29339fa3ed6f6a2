"""The metric Space: the ForceBench module beside this file behind a small Gradio widget (API ``/compute``).

Found through this file's own folder, whatever the checkout folder is called.
"""

from pathlib import Path

import evaluate

from eviscope.space.metric_widget import build_widget

module = evaluate.load(str(Path(__file__).with_name("forcebench.py")))
build_widget(module, title="ForceBench").launch()
