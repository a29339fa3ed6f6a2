"""The metric Space: the toy module beside this file behind the suite's Gradio widget (API ``/compute``)."""

from pathlib import Path

import evaluate

from eviscope.space.metric_widget import build_widget

module = evaluate.load(str(Path(__file__).with_name("toy.py")))
build_widget(module, title="Toy").launch()
